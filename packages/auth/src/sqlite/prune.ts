/** The sweep facet (`store/prune.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { inArray, lte, or, sql } from 'drizzle-orm'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import { changes, type SqliteDb, type SqliteSteps } from './db.js'
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

export const sqlitePrune = (db: SqliteDb, steps: SqliteSteps): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, forgetApiKeysExpiredBy, limit }) {
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
    const expiredKeys = db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(lte(apiKeys.expiresAt, forgetApiKeysExpiredBy))
      .limit(limit)
    // Each delete is one short statement of its own: the write lock is held for at most `limit` deletes.
    const [s, r, e, c, a, d, k, f, p] = await steps.each([
      db.delete(sessions).where(inArray(sessions.id, deadSessions)),
      db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
      db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
      db.delete(challenges).where(inArray(challenges.hash, spent(challenges))),
      db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
      db.delete(devices).where(inArray(sql`rowid`, forgotten)),
      db.delete(apiKeys).where(inArray(apiKeys.id, expiredKeys)),
      db.delete(oauthFlows).where(inArray(oauthFlows.hash, spent(oauthFlows))),
      db.delete(passkeyChallenges).where(inArray(passkeyChallenges.hash, spent(passkeyChallenges))),
    ])
    return {
      sessions: changes(s),
      resetTokens: changes(r),
      emailTokens: changes(e),
      challenges: changes(c),
      addCredentialCodes: changes(a),
      devices: changes(d),
      apiKeys: changes(k),
      oauthFlows: changes(f),
      passkeyChallenges: changes(p),
    }
  },
})
