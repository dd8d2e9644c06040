/** The sweep facet (`store/prune.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { inArray, lte, or, sql } from 'drizzle-orm'
import { spentOrExpired } from '../store/predicates.js'
import type { PruneStore } from '../store/prune.js'
import { changes, type SqliteDb, type SqliteSteps } from './db.js'
import { addCredentialCodes, challenges, devices, emailTokens, resetTokens, sessions } from './schema.js'

export const sqlitePrune = (db: SqliteDb, steps: SqliteSteps): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    const deadSessions = db
      .select({ id: sessions.id })
      .from(sessions)
      .where(or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy)))
      .limit(limit)
    const spent = <T extends typeof resetTokens | typeof emailTokens | typeof challenges>(table: T) =>
      db.select({ hash: table.hash }).from(table).where(spentOrExpired(table, now)).limit(limit)
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
    const results = await steps.each([
      db.delete(sessions).where(inArray(sessions.id, deadSessions)),
      db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
      db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
      db.delete(challenges).where(inArray(challenges.hash, spent(challenges))),
      db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
      db.delete(devices).where(inArray(sql`rowid`, forgotten)),
    ])
    const [s, r, e, c, a, d] = results.map(changes) as [number, number, number, number, number, number]
    return { sessions: s, resetTokens: r, emailTokens: e, challenges: c, addCredentialCodes: a, devices: d }
  },
})
