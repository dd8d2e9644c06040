/** The sweep facet (`store/prune.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { inArray, lte, or, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import { changes, type SqliteDb, type SqliteSteps } from './db.js'
import { addCredentialCodes, devices, emailTokens, resetTokens, sessions } from './tables.js'

/** The tables of single-use rows: used, or expired at `now`, is dead. */
type SingleUse = typeof resetTokens | typeof emailTokens

/**
 * One batch of a feature's sweep (`sweep` in its facet record): deletes at most `limit` rows of
 * `table` that `dead` selects, each named by `key`; answers how many went. One short statement, so
 * the write lock is held for at most `limit` deletes.
 */
export const sqliteDeleteBatch = async (db: SqliteDb, table: SQLiteTable, key: SQLiteColumn, dead: SQL, limit: number) =>
  changes(
    await db
      .delete(table)
      .where(inArray(key, db.select({ key }).from(table).where(dead).limit(limit)))
      .run(),
  )

export const sqlitePrune = (db: SqliteDb, steps: SqliteSteps): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    const deadSessions = db
      .select({ id: sessions.id })
      .from(sessions)
      .where(or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy)))
      .limit(limit)
    const spent = (table: SingleUse) => db.select({ hash: table.hash }).from(table).where(spentOrExpired(table, now)).limit(limit)
    const expiredCodes = db
      .select({ userId: addCredentialCodes.userId })
      .from(addCredentialCodes)
      .where(lte(addCredentialCodes.expiresAt, now))
      .limit(limit)
    const forgotten = db
      .select({ rowid: sql`rowid` })
      .from(devices)
      .where(lte(devices.lastSeenAt, forgetDevicesSeenBy))
      .limit(limit)
    // Each delete is one short statement of its own: the write lock is held for at most `limit` deletes.
    const [s, r, e, a, d] = await steps.each([
      db.delete(sessions).where(inArray(sessions.id, deadSessions)),
      db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
      db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
      db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
      db.delete(devices).where(inArray(sql`rowid`, forgotten)),
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
