/** The sweep facet (`store/prune.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { inArray, lte, or, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import { changes, type SqliteDb, type SqliteSteps } from './db.js'
import { addCredentialCodes, devices, emailTokens, resetTokens, sessions } from './tables.js'

/**
 * The delete of at most `limit` rows of `table` that `dead` selects, each named by `key` (a column,
 * or `rowid`): one short statement, so the write lock is held for at most `limit` deletes. The
 * core's prune runs five of them; a feature's sweep runs its own ({@link sqliteDeleteBatch}).
 */
const deadBatch = (db: SqliteDb, table: SQLiteTable, key: SQLiteColumn | SQL, dead: SQL | undefined, limit: number) =>
  db.delete(table).where(inArray(sql`${key}`, db.select({ key }).from(table).where(dead).limit(limit)))

/** One batch of a feature's sweep (`sweep` in its record): the delete above, run; answers how many went. */
export const sqliteDeleteBatch = async (db: SqliteDb, table: SQLiteTable, key: SQLiteColumn, dead: SQL, limit: number) =>
  changes(await deadBatch(db, table, key, dead, limit).run())

export const sqlitePrune = (db: SqliteDb, steps: SqliteSteps): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    const batch = (table: SQLiteTable, key: SQLiteColumn | SQL, dead: SQL | undefined) => deadBatch(db, table, key, dead, limit)
    const [s, r, e, a, d] = await steps.each([
      batch(sessions, sessions.id, or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy))),
      batch(resetTokens, resetTokens.hash, spentOrExpired(resetTokens, now)),
      batch(emailTokens, emailTokens.hash, spentOrExpired(emailTokens, now)),
      batch(addCredentialCodes, addCredentialCodes.userId, lte(addCredentialCodes.expiresAt, now)),
      batch(devices, sql`rowid`, lte(devices.lastSeenAt, forgetDevicesSeenBy)),
    ])
    return {
      sessions: changes(s),
      resetTokens: changes(r),
      emailTokens: changes(e),
      addCredentialCodes: changes(a),
      devices: changes(d),
    }
  },
})
