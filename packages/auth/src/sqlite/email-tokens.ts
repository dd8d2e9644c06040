/** The email-token facet (`store/email-tokens.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { and, eq, exists, isNotNull, isNull, sql } from 'drizzle-orm'
import type {
  EmailChangeOutcome,
  EmailTokenStore,
  NewEmailToken,
  SettledEmailVerification,
  SpendEmailTokenInput,
} from '../store/email-tokens.js'
import { liveToken } from '../store/predicates.js'
import { changes, type SqliteDb, type SqliteSteps, type StepValues } from './db.js'
import { lastRows, revokeSteps } from './revoke.js'
import { emailTokens, users } from './schema.js'

export const sqliteEmailTokens = (db: SqliteDb, steps: SqliteSteps): EmailTokenStore => {
  // Every signup stores one: one step, prepared once on the synchronous drivers.
  const create = steps.preparedAtomic(
    ({
      kind,
      userId,
      tokenHash,
      expiresAt,
      newEmail,
    }: StepValues<Omit<NewEmailToken, 'newEmail'> & { newEmail: string | null }>) => [
      db.delete(emailTokens).where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt))),
      db.insert(emailTokens).values({ hash: tokenHash, userId, kind, newEmail, expiresAt }),
    ],
  )
  /** The user of the token `tokenHash`, as a subquery. */
  const ownerOf = (tokenHash: string) =>
    sql`(select ${emailTokens.userId} from ${emailTokens} where ${emailTokens.hash} = ${tokenHash})`

  /** Spends a `verify-email` token and verifies its user; applies `revoke` always, or only on the first proof. */
  const redeemVerifyToken = async (
    { tokenHash, now, revoke }: SpendEmailTokenInput,
    firstProofOnly: boolean,
  ): Promise<SettledEmailVerification | null> => {
    const live = and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, 'verify-email'))
    const unspent = exists(db.select({ one: sql`1` }).from(emailTokens).where(live))
    const owner = ownerOf(tokenHash)
    const unverified = exists(
      db
        .select({ one: sql`1` })
        .from(users)
        .where(and(eq(users.id, owner), eq(users.emailVerified, false))),
    )
    const revocation = revokeSteps(
      db,
      { userId: owner, revoke, spentHash: tokenHash },
      firstProofOnly ? and(unspent, unverified) : unspent,
    )
    // The update that verifies the account ends the first-proof guard: the revocation comes before it.
    const [before, revoked, ...results] = await steps.durable(() =>
      steps.atomic([
        db.select({ emailVerified: users.emailVerified }).from(users).where(eq(users.id, owner)),
        revocation.sessions,
        ...revocation.deletes,
        revocation.userUpdate,
        db
          .update(users)
          .set({ emailVerified: true })
          .where(and(eq(users.id, owner), unspent)),
        db.update(emailTokens).set({ usedAt: now }).where(live).returning({ userId: emailTokens.userId }),
      ]),
    )
    const [spent] = lastRows<{ userId: string }>(results)
    if (!spent) return null
    const settled = before[0]?.emailVerified === false
    return { userId: spent.userId, settled, revokedSessionIds: settled || !firstProofOnly ? revoked.map((row) => row.id) : [] }
  }

  return {
    async createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail }) {
      await create({ kind, userId, tokenHash, expiresAt, newEmail: newEmail ?? null })
    },

    async findEmailToken(tokenHash, kind, now) {
      const row = await db
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

    async confirmEmailChange({ tokenHash, now, revoke }): Promise<EmailChangeOutcome> {
      const live = and(liveToken(emailTokens, tokenHash, now), eq(emailTokens.kind, 'change-email'))
      const unspent = exists(
        db
          .select({ one: sql`1` })
          .from(emailTokens)
          .where(and(live, isNotNull(emailTokens.newEmail))),
      )
      const owner = ownerOf(tokenHash)
      const address = sql`(select ${emailTokens.newEmail} from ${emailTokens} where ${emailTokens.hash} = ${tokenHash})`
      // Another account holds the new address: nothing changes but the spent token.
      const free = sql`not exists (select 1 from ${users} as holder where holder.email = ${address} and holder.id <> ${owner})`
      // After the update: the owner's address is the new one.
      const moved = exists(
        db
          .select({ one: sql`1` })
          .from(users)
          .where(and(eq(users.id, owner), eq(users.email, address))),
      )
      const revocation = revokeSteps(db, { userId: owner, revoke, spentHash: tokenHash }, and(unspent, moved))
      const results = await steps.durable(() =>
        steps.atomic([
          db.select({ email: users.email }).from(users).where(eq(users.id, owner)),
          db
            .update(users)
            .set({ email: address, emailVerified: true, ...revocation.user })
            .where(and(eq(users.id, owner), unspent, free)),
          revocation.sessions,
          ...revocation.deletes,
          db
            .update(emailTokens)
            .set({ usedAt: now })
            .where(live)
            .returning({ userId: emailTokens.userId, newEmail: emailTokens.newEmail }),
        ]),
      )
      const before = results[0][0]
      const [spent] = lastRows<{ userId: string; newEmail: string | null }>(results)
      if (!spent?.newEmail || !before) return { status: 'invalid' }
      if (changes(results[1]) !== 1) return { status: 'taken', userId: spent.userId }
      return { status: 'changed', userId: spent.userId, oldEmail: before.email, newEmail: spent.newEmail }
    },
  }
}
