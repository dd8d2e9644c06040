/** The email-token facet (`store/email-tokens.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, eq, isNull } from 'drizzle-orm'
import type {
  EmailChangeOutcome,
  EmailTokenStore,
  SettledEmailVerification,
  SpendEmailTokenInput,
} from '../store/email-tokens.js'
import { liveToken } from '../store/predicates.js'
import { type Durable, immediate, type SyncSqliteDb } from './db.js'
import { revokeSync } from './revoke.js'
import { emailTokens, users } from './schema.js'

export const sqliteEmailTokens = (db: SyncSqliteDb, durable: Durable): EmailTokenStore => {
  /** Spends a `verify-email` token and verifies its user; applies `revoke` always, or only on the first proof. */
  const redeemVerifyToken = async (
    { tokenHash, now, revoke }: SpendEmailTokenInput,
    firstProofOnly: boolean,
  ): Promise<SettledEmailVerification | null> =>
    durable(() =>
      db.transaction((tx) => {
        const spent = tx
          .update(emailTokens)
          .set({ usedAt: now })
          .where(and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, 'verify-email')))
          .returning({ userId: emailTokens.userId })
          .get()
        if (!spent) return null
        const before = tx.select({ emailVerified: users.emailVerified }).from(users).where(eq(users.id, spent.userId)).get()
        const settled = before?.emailVerified === false
        tx.update(users).set({ emailVerified: true }).where(eq(users.id, spent.userId)).run()
        const revokedSessionIds = settled || !firstProofOnly ? revokeSync(tx, { userId: spent.userId, revoke }) : []
        return { userId: spent.userId, settled, revokedSessionIds }
      }, immediate),
    )

  return {
    async createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail }) {
      db.transaction((tx) => {
        tx.delete(emailTokens)
          .where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt)))
          .run()
        tx.insert(emailTokens)
          .values({ hash: tokenHash, userId, kind, newEmail: newEmail ?? null, expiresAt })
          .run()
      }, immediate)
    },

    async findEmailToken(tokenHash, kind, now) {
      const row = db
        .select({ userId: users.id, email: users.email })
        .from(emailTokens)
        .innerJoin(users, eq(users.id, emailTokens.userId))
        .where(and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, kind)))
        .get()
      return row ?? null
    },

    async verifyEmail(input) {
      return (await redeemVerifyToken(input, false))?.userId ?? null
    },

    settleEmailVerification: (input) => redeemVerifyToken(input, true),

    async confirmEmailChange({ tokenHash, now, revoke }) {
      return durable(() =>
        db.transaction((tx): EmailChangeOutcome => {
          const spent = tx
            .update(emailTokens)
            .set({ usedAt: now })
            .where(and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, 'change-email')))
            .returning({ userId: emailTokens.userId, newEmail: emailTokens.newEmail })
            .get()
          const owner = spent && tx.select({ email: users.email }).from(users).where(eq(users.id, spent.userId)).get()
          if (!spent?.newEmail || !owner) return { status: 'invalid' }
          const holder = tx.select({ id: users.id }).from(users).where(eq(users.email, spent.newEmail)).get()
          if (holder && holder.id !== spent.userId) return { status: 'taken', userId: spent.userId }
          tx.update(users).set({ email: spent.newEmail, emailVerified: true }).where(eq(users.id, spent.userId)).run()
          revokeSync(tx, { userId: spent.userId, revoke })
          return { status: 'changed', userId: spent.userId, oldEmail: owner.email, newEmail: spent.newEmail }
        }, immediate),
      )
    },
  }
}
