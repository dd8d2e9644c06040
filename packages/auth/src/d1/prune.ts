/** The sweep facet (`store/prune.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { inArray, isNotNull, or, sql } from 'drizzle-orm'
import { addCredentialCodes, challenges, devices, emailTokens, resetTokens, sessions } from '../sqlite/schema.js'
import type { PruneStore } from '../store/prune.js'
import { changes, type D1Db } from './db.js'

export const d1Prune = (db: D1Db): PruneStore => ({
  async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
    const deadSessions = db
      .select({ id: sessions.id })
      .from(sessions)
      .where(
        or(
          sql`${sessions.refreshedAt} <= ${deadIfRefreshedBy.getTime()}`,
          sql`${sessions.createdAt} <= ${deadIfCreatedBy.getTime()}`,
        ),
      )
      .limit(limit)
    const spent = <T extends typeof resetTokens | typeof emailTokens | typeof challenges>(table: T) =>
      db
        .select({ hash: table.hash })
        .from(table)
        .where(or(isNotNull(table.usedAt), sql`${table.expiresAt} <= ${now.getTime()}`))
        .limit(limit)
    const expiredCodes = db
      .select({ userId: addCredentialCodes.userId })
      .from(addCredentialCodes)
      .where(sql`${addCredentialCodes.expiresAt} <= ${now.getTime()}`)
      .limit(limit)
    const results = await db.batch([
      db.delete(sessions).where(inArray(sessions.id, deadSessions)),
      db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
      db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
      db.delete(challenges).where(inArray(challenges.hash, spent(challenges))),
      db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
      db
        .delete(devices)
        .where(
          inArray(
            sql`rowid`,
            db
              .select({ rowid: sql`rowid` })
              .from(devices)
              .where(sql`${devices.lastSeenAt} <= ${forgetDevicesSeenBy.getTime()}`)
              .limit(limit),
          ),
        ),
    ])
    const [s, r, e, c, a, d] = results.map(changes) as [number, number, number, number, number, number]
    return { sessions: s, resetTokens: r, emailTokens: e, challenges: c, addCredentialCodes: a, devices: d }
  },
})
