/** The reset-token facet (`store/reset-tokens.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { and, eq, isNull } from 'drizzle-orm'
import { liveToken } from '../store/predicates.js'
import type { ResetTokenStore } from '../store/reset-tokens.js'
import { lockUser, type PgDb } from './db.js'
import { revokePostgres } from './revoke.js'
import { resetTokens, users } from './schema.js'

export const postgresResetTokens = (db: PgDb): ResetTokenStore => ({
  async createResetToken({ userId, tokenHash, expiresAt }) {
    await db.transaction(async (tx) => {
      // Serialises concurrent requests of one user, so only the newest token survives.
      await lockUser(tx, userId)
      await tx.delete(resetTokens).where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt)))
      await tx.insert(resetTokens).values({ hash: tokenHash, userId, expiresAt })
    })
  },

  async findResetToken(tokenHash, now) {
    const [row] = await db
      .select({ userId: users.id, email: users.email })
      .from(resetTokens)
      .innerJoin(users, eq(users.id, resetTokens.userId))
      .where(liveToken(resetTokens, tokenHash, now))
    return row ?? null
  },

  async consumeResetToken({ tokenHash, now, passwordHash, revoke }) {
    return db.transaction(async (tx) => {
      // The owner's row first, as createResetToken takes it, before the token row.
      const [owner] = await tx
        .select({ id: users.id })
        .from(resetTokens)
        .innerJoin(users, eq(users.id, resetTokens.userId))
        .where(eq(resetTokens.hash, tokenHash))
        .for('no key update', { of: users })
      if (!owner) return null
      // The decision: only one caller finds the token still unused.
      const [spent] = await tx
        .update(resetTokens)
        .set({ usedAt: now })
        .where(liveToken(resetTokens, tokenHash, now))
        .returning({ userId: resetTokens.userId })
      if (!spent) return null
      await tx
        .update(users)
        // The token came by mail to the account's address: that proves the mailbox too.
        .set({ passwordHash, emailVerified: true })
        .where(eq(users.id, spent.userId))
      await revokePostgres(tx, { userId: spent.userId, revoke })
      return spent.userId
    })
  },
})
