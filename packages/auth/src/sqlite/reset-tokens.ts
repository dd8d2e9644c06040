/** The reset-token facet (`store/reset-tokens.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { and, eq, exists, isNull, sql } from 'drizzle-orm'
import { liveToken } from '../store/predicates.js'
import type { ResetTokenStore } from '../store/reset-tokens.js'
import type { SqliteDb, SqliteSteps } from './db.js'
import { lastRows, revokeSteps } from './revoke.js'
import { resetTokens, users } from './schema.js'

export const sqliteResetTokens = (db: SqliteDb, steps: SqliteSteps): ResetTokenStore => ({
  async createResetToken({ userId, tokenHash, expiresAt }) {
    await steps.atomic([
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
    const revocation = revokeSteps(db, { userId: owner, revoke, spentHash: tokenHash }, unspent)
    const results = await steps.durable(() =>
      steps.atomic([
        // The token came by mail to the account's address: that proves the mailbox too.
        db
          .update(users)
          .set({ passwordHash, emailVerified: true, ...revocation.user })
          .where(and(eq(users.id, owner), unspent)),
        revocation.sessions,
        ...revocation.deletes,
        db.update(resetTokens).set({ usedAt: now }).where(live).returning({ userId: resetTokens.userId }),
      ]),
    )
    return lastRows<{ userId: string }>(results)[0]?.userId ?? null
  },
})
