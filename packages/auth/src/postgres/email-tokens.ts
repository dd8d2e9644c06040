/** The email-token facet (`store/email-tokens.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { and, eq, isNull } from 'drizzle-orm'
import type {
  EmailChangeOutcome,
  EmailTokenStore,
  SettledEmailVerification,
  SpendEmailTokenInput,
} from '../store/email-tokens.js'
import { liveToken } from '../store/predicates.js'
import { lockTokenOwner, lockUser, type PgDb, sqlState } from './db.js'
import { revokePostgres } from './revoke.js'
import { emailTokens, users } from './schema.js'

export const postgresEmailTokens = (db: PgDb): EmailTokenStore => {
  /** Spends a `verify-email` token and verifies its user; applies `revoke` always, or only on the first proof. */
  const redeemVerifyToken = (
    { tokenHash, now, revoke }: SpendEmailTokenInput,
    firstProofOnly: boolean,
  ): Promise<SettledEmailVerification | null> =>
    db.transaction(async (tx) => {
      const owner = await lockTokenOwner(tx, tokenHash)
      if (!owner) return null
      const [spent] = await tx
        .update(emailTokens)
        .set({ usedAt: now })
        .where(and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, 'verify-email')))
        .returning({ userId: emailTokens.userId })
      if (!spent) return null
      // The owner's row is locked: what it says now holds until the commit.
      const [before] = await tx.select({ emailVerified: users.emailVerified }).from(users).where(eq(users.id, spent.userId))
      const settled = before?.emailVerified === false
      await tx.update(users).set({ emailVerified: true }).where(eq(users.id, spent.userId))
      const revokedSessionIds = settled || !firstProofOnly ? await revokePostgres(tx, { userId: spent.userId, revoke }) : []
      return { userId: spent.userId, settled, revokedSessionIds }
    })

  return {
    async createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail }) {
      await db.transaction(async (tx) => {
        // Serialises concurrent requests of one user, so only the newest token of the kind survives.
        await lockUser(tx, userId)
        await tx
          .delete(emailTokens)
          .where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt)))
        await tx.insert(emailTokens).values({ hash: tokenHash, userId, kind, newEmail: newEmail ?? null, expiresAt })
      })
    },

    async findEmailToken(tokenHash, kind, now) {
      const [row] = await db
        .select({ userId: users.id, email: users.email })
        .from(emailTokens)
        .innerJoin(users, eq(users.id, emailTokens.userId))
        .where(and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, kind)))
      return row ?? null
    },

    async verifyEmail(input) {
      return (await redeemVerifyToken(input, false))?.userId ?? null
    },

    settleEmailVerification: (input) => redeemVerifyToken(input, true),

    async confirmEmailChange({ tokenHash, now, revoke }) {
      return db.transaction(async (tx): Promise<EmailChangeOutcome> => {
        const owner = await lockTokenOwner(tx, tokenHash)
        if (!owner) return { status: 'invalid' }
        const [spent] = await tx
          .update(emailTokens)
          .set({ usedAt: now })
          .where(and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, 'change-email')))
          .returning({ userId: emailTokens.userId, newEmail: emailTokens.newEmail })
        if (!spent?.newEmail) return { status: 'invalid' }
        const { newEmail } = spent
        // In a savepoint: a signup that takes the address at this moment fails the unique index
        // here, and the spent token must still commit.
        const changed = await tx
          .transaction(async (sp) => {
            await sp.update(users).set({ email: newEmail, emailVerified: true }).where(eq(users.id, spent.userId))
            return true
          })
          .catch((err: unknown) => {
            if (sqlState(err) === '23505') return false
            throw err
          })
        if (!changed) return { status: 'taken', userId: spent.userId }
        await revokePostgres(tx, { userId: spent.userId, revoke })
        return { status: 'changed', userId: spent.userId, oldEmail: owner.email, newEmail }
      })
    },
  }
}
