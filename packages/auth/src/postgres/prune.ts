/** The sweep facet (`store/prune.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { inArray, lte, or, type SQL, sql } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import type { PgDb } from './db.js'
import { addCredentialCodes, devices, emailTokens, resetTokens, sessions } from './tables.js'

/** The tables of single-use rows: used, or expired at `now`, is dead. */
type SingleUse = typeof resetTokens | typeof emailTokens

/**
 * One batch of a feature's sweep (`sweep` in its facet record): deletes at most `limit` rows of
 * `table` that `dead` selects, each named by `key`, skipping rows a request holds locked (the next
 * sweep takes them); answers how many went.
 */
export const postgresDeleteBatch = async (db: PgDb, table: PgTable, key: PgColumn, dead: SQL, limit: number) => {
  const batch = db.select({ key }).from(table).where(dead).limit(limit).for('update', { skipLocked: true })
  return (await db.delete(table).where(inArray(key, batch))).rowCount ?? 0
}

export const postgresPrune = (db: PgDb): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    // Bounded batches; SKIP LOCKED leaves rows a request is working on to the next sweep, so a
    // sweep never waits on, nor makes wait, a login, a refresh or a reset.
    const deadSessions = db
      .select({ id: sessions.id })
      .from(sessions)
      .where(or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy)))
      .limit(limit)
      .for('update', { skipLocked: true })
    const spent = (table: SingleUse) =>
      db
        .select({ hash: table.hash })
        .from(table)
        .where(spentOrExpired(table, now))
        .limit(limit)
        .for('update', { skipLocked: true })
    const expiredCodes = db
      .select({ userId: addCredentialCodes.userId })
      .from(addCredentialCodes)
      .where(lte(addCredentialCodes.expiresAt, now))
      .limit(limit)
      .for('update', { skipLocked: true })
    const forgotten = db
      .select({ ctid: sql`ctid` })
      .from(devices)
      .where(lte(devices.lastSeenAt, forgetDevicesSeenBy))
      .limit(limit)
      .for('update', { skipLocked: true })
    const [dead, spentReset, spentEmail, expired, forgottenDevices] = await Promise.all([
      db.delete(sessions).where(inArray(sessions.id, deadSessions)),
      db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
      db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
      db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
      db.delete(devices).where(inArray(sql`ctid`, forgotten)),
    ])
    return {
      sessions: dead.rowCount ?? 0,
      resetTokens: spentReset.rowCount ?? 0,
      emailTokens: spentEmail.rowCount ?? 0,
      addCredentialCodes: expired.rowCount ?? 0,
      devices: forgottenDevices.rowCount ?? 0,
    }
  },
})
