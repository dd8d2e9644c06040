/** The sweep facet (`store/prune.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { inArray, lte, or, sql } from 'drizzle-orm'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import type { PgDb } from './db.js'
import {
  addCredentialCodes,
  apiKeys,
  challenges,
  devices,
  emailTokens,
  oauthFlows,
  passkeyChallenges,
  resetTokens,
  sessions,
} from './schema.js'

/** The tables of single-use rows: used, or expired at `now`, is dead. */
type SingleUse = typeof resetTokens | typeof emailTokens | typeof challenges | typeof oauthFlows | typeof passkeyChallenges

export const postgresPrune = (db: PgDb): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, forgetApiKeysExpiredBy, limit }) {
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
    const expiredKeys = db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(lte(apiKeys.expiresAt, forgetApiKeysExpiredBy))
      .limit(limit)
      .for('update', { skipLocked: true })
    const [dead, spentReset, spentEmail, spentChallenges, expired, forgottenDevices, keys, flows, ceremonies] = await Promise.all(
      [
        db.delete(sessions).where(inArray(sessions.id, deadSessions)),
        db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
        db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
        db.delete(challenges).where(inArray(challenges.hash, spent(challenges))),
        db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
        db.delete(devices).where(inArray(sql`ctid`, forgotten)),
        db.delete(apiKeys).where(inArray(apiKeys.id, expiredKeys)),
        db.delete(oauthFlows).where(inArray(oauthFlows.hash, spent(oauthFlows))),
        db.delete(passkeyChallenges).where(inArray(passkeyChallenges.hash, spent(passkeyChallenges))),
      ],
    )
    return {
      sessions: dead.rowCount ?? 0,
      resetTokens: spentReset.rowCount ?? 0,
      emailTokens: spentEmail.rowCount ?? 0,
      challenges: spentChallenges.rowCount ?? 0,
      addCredentialCodes: expired.rowCount ?? 0,
      devices: forgottenDevices.rowCount ?? 0,
      apiKeys: keys.rowCount ?? 0,
      oauthFlows: flows.rowCount ?? 0,
      passkeyChallenges: ceremonies.rowCount ?? 0,
    }
  },
})
