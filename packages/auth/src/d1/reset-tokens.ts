/** The reset-token facet (`store/reset-tokens.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { and, eq, exists, isNull, sql } from 'drizzle-orm'
import { resetTokens, users } from '../sqlite/schema.js'
import { liveToken } from '../store/predicates.js'
import type { ResetTokenStore } from '../store/reset-tokens.js'
import type { D1Db } from './db.js'
import { lastRows, revokeD1 } from './revoke.js'

export const d1ResetTokens = (db: D1Db): ResetTokenStore => ({
  async createResetToken({ userId, tokenHash, expiresAt }) {
    await db.batch([
      db.delete(resetTokens).where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt))),
      db.insert(resetTokens).values({ hash: tokenHash, userId, expiresAt }),
    ])
  },

  async findResetToken(tokenHash, now) {
    const row = await db
      .select({ userId: users.id, email: users.email })
      .from(resetTokens)
      .innerJoin(users, eq(users.id, resetTokens.userId))
      .where(liveToken(resetTokens, tokenHash, now))
      .get()
    return row ?? null
  },

  async consumeResetToken({ tokenHash, now, passwordHash, revoke }) {
    const live = liveToken(resetTokens, tokenHash, now)
    const unspent = exists(db.select({ one: sql`1` }).from(resetTokens).where(live))
    const owner = sql`(select ${resetTokens.userId} from ${resetTokens} where ${resetTokens.hash} = ${tokenHash})`
    const revocation = revokeD1(db, { userId: owner, revoke, spentHash: tokenHash }, unspent)
    const results = await db.batch([
      // The token came by mail to the account's address: that proves the mailbox too.
      db
        .update(users)
        .set({ passwordHash, emailVerified: true, ...revocation.user })
        .where(and(eq(users.id, owner), unspent)),
      revocation.sessions,
      ...revocation.deletes,
      db.update(resetTokens).set({ usedAt: now }).where(live).returning({ userId: resetTokens.userId }),
    ])
    return lastRows<{ userId: string }>(results)[0]?.userId ?? null
  },
})
