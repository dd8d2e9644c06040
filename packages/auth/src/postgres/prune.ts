/** The sweep facet (`store/prune.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { inArray, lte, or, type SQL, sql } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import type { PgDb } from './db.js'
import { addCredentialCodes, devices, emailTokens, resetTokens, sessions } from './tables.js'

/**
 * Deletes at most `limit` rows of `table` that `dead` selects, each named by `key` (a column, or
 * `ctid`), skipping rows a request holds locked (the next sweep takes them), so a sweep never
 * waits on, nor makes wait, a login, a refresh or a reset; answers how many went. The core's prune
 * runs five at once; a feature's sweep (`sweep` in its record) runs its own.
 */
export const postgresDeleteBatch = async (
  db: PgDb,
  table: PgTable,
  key: PgColumn | SQL,
  dead: SQL | undefined,
  limit: number,
) => {
  const batch = db.select({ key }).from(table).where(dead).limit(limit).for('update', { skipLocked: true })
  return (await db.delete(table).where(inArray(sql`${key}`, batch))).rowCount ?? 0
}

export const postgresPrune = (db: PgDb): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    const batch = (table: PgTable, key: PgColumn | SQL, dead: SQL | undefined) => postgresDeleteBatch(db, table, key, dead, limit)
    const [dead, spentReset, spentEmail, expired, forgotten] = await Promise.all([
      batch(sessions, sessions.id, or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy))),
      batch(resetTokens, resetTokens.hash, spentOrExpired(resetTokens, now)),
      batch(emailTokens, emailTokens.hash, spentOrExpired(emailTokens, now)),
      batch(addCredentialCodes, addCredentialCodes.userId, lte(addCredentialCodes.expiresAt, now)),
      batch(devices, sql`ctid`, lte(devices.lastSeenAt, forgetDevicesSeenBy)),
    ])
    return { sessions: dead, resetTokens: spentReset, emailTokens: spentEmail, addCredentialCodes: expired, devices: forgotten }
  },
})
