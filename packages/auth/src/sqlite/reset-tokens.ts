/** The reset-token facet (`store/reset-tokens.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, eq, isNull } from 'drizzle-orm'
import { liveToken } from '../store/predicates.js'
import type { ResetTokenStore } from '../store/reset-tokens.js'
import { type Durable, immediate, type SyncSqliteDb } from './db.js'
import { revokeSync } from './revoke.js'
import { resetTokens, users } from './schema.js'

export const sqliteResetTokens = (db: SyncSqliteDb, durable: Durable): ResetTokenStore => ({
  async createResetToken({ userId, tokenHash, expiresAt }) {
    db.transaction((tx) => {
      tx.delete(resetTokens)
        .where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt)))
        .run()
      tx.insert(resetTokens).values({ hash: tokenHash, userId, expiresAt }).run()
    }, immediate)
  },

  async findResetToken(tokenHash, now) {
    const row = db
      .select({ userId: users.id, email: users.email })
      .from(resetTokens)
      .innerJoin(users, eq(users.id, resetTokens.userId))
      .where(liveToken(resetTokens, tokenHash, now))
      .get()
    return row ?? null
  },

  async consumeResetToken({ tokenHash, now, passwordHash, revoke }) {
    return durable(() =>
      db.transaction((tx) => {
        const spent = tx
          .update(resetTokens)
          .set({ usedAt: now })
          .where(liveToken(resetTokens, tokenHash, now))
          .returning({ userId: resetTokens.userId })
          .get()
        if (!spent) return null
        // The token came by mail to the account's address: that proves the mailbox too.
        tx.update(users).set({ passwordHash, emailVerified: true }).where(eq(users.id, spent.userId)).run()
        revokeSync(tx, { userId: spent.userId, revoke })
        return spent.userId
      }, immediate),
    )
  },
})
