/** The sweep facet (`store/prune.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { inArray, lte, or, sql } from 'drizzle-orm'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import type { Durable, SyncSqliteDb } from './db.js'
import { addCredentialCodes, challenges, devices, emailTokens, resetTokens, sessions } from './schema.js'

export const sqlitePrune = (db: SyncSqliteDb, _durable: Durable): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    // Each batch is one short statement: the write lock is held for at most `limit` deletes.
    const deadSessions = db
      .select({ id: sessions.id })
      .from(sessions)
      .where(or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy)))
      .limit(limit)
    const spentTokens = db
      .select({ hash: resetTokens.hash })
      .from(resetTokens)
      .where(spentOrExpired(resetTokens, now))
      .limit(limit)
    const spentEmailTokens = db
      .select({ hash: emailTokens.hash })
      .from(emailTokens)
      .where(spentOrExpired(emailTokens, now))
      .limit(limit)
    const deadChallenges = db
      .select({ hash: challenges.hash })
      .from(challenges)
      .where(spentOrExpired(challenges, now))
      .limit(limit)
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
    return {
      sessions: db.delete(sessions).where(inArray(sessions.id, deadSessions)).run().changes,
      resetTokens: db.delete(resetTokens).where(inArray(resetTokens.hash, spentTokens)).run().changes,
      emailTokens: db.delete(emailTokens).where(inArray(emailTokens.hash, spentEmailTokens)).run().changes,
      challenges: db.delete(challenges).where(inArray(challenges.hash, deadChallenges)).run().changes,
      addCredentialCodes: db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)).run().changes,
      devices: db.delete(devices).where(inArray(sql`rowid`, forgotten)).run().changes,
    }
  },
})
