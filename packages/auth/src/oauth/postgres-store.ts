/**
 * The social sign-in facet on PostgreSQL. Creating an account with its identity is one
 * transaction that rolls back unless both rows were inserted; unlinking locks the user's row first
 * (the store's lock order: users before their rows), so two concurrent removals cannot both take
 * the last way to sign in.
 */
import { and, asc, eq } from 'drizzle-orm'
import { lockUser, type PgDb } from '../postgres/db.js'
import { postgresDeleteBatch } from '../postgres/prune.js'
import { passkeys } from '../postgres/schema.js'
import { users } from '../postgres/tables.js'
import { spentOrExpired } from '../store/predicates.js'
import { NO_PASSWORD } from '../store/rows.js'
import { identities, oauthFlows } from './postgres-tables.js'
import {
  claimableFlow,
  flowColumns,
  identityOf,
  keptTokens,
  listedColumns,
  otherIdentities,
  ownIdentity,
  staleTokens,
  tokensStill,
  usedIdentity,
} from './queries.js'
import type { FederatedSignUp, IdentityStore } from './store.js'

/** Thrown inside the transaction to roll it back with an answer. */
class Refused extends Error {
  constructor(readonly outcome: FederatedSignUp) {
    super(outcome)
  }
}

export const postgresIdentities = (db: PgDb): IdentityStore => ({
  async findIdentity(issuer, subject) {
    const [row] = await db
      .select(listedColumns(identities))
      .from(identities)
      .where(identityOf(identities, issuer, subject))
    return row ?? null
  },

  listIdentities: (userId) =>
    db
      .select(listedColumns(identities))
      .from(identities)
      .where(eq(identities.userId, userId))
      .orderBy(asc(identities.createdAt), asc(identities.id)),

  async createFederatedUser(user, identity) {
    try {
      return await db.transaction(async (tx) => {
        const created = await tx
          .insert(users)
          .values({ ...user, passwordHash: NO_PASSWORD })
          .onConflictDoNothing()
          .returning({ id: users.id })
        if (created.length === 0) throw new Refused('email_taken')
        const linked = await tx
          .insert(identities)
          .values({ ...identity, lastUsedAt: null })
          .onConflictDoNothing()
          .returning({ id: identities.id })
        if (linked.length === 0) throw new Refused('identity_taken')
        return 'created' as const
      })
    } catch (err) {
      if (err instanceof Refused) return err.outcome
      throw err
    }
  },

  async linkIdentity(identity) {
    const rows = await db
      .insert(identities)
      .values({ ...identity, lastUsedAt: null })
      .onConflictDoNothing()
      .returning({ id: identities.id })
    if (rows.length === 1) return 'linked'
    const [owner] = await db
      .select({ userId: identities.userId })
      .from(identities)
      .where(identityOf(identities, identity.issuer, identity.subject))
    return owner?.userId === identity.userId ? 'already_linked' : 'in_use'
  },

  async useIdentity(input) {
    await db.update(identities).set(usedIdentity(input)).where(eq(identities.id, input.id))
  },

  async findIdentityTokens(userId, provider) {
    const { where, order } = keptTokens(identities, userId, provider)
    const [row] = await db
      .select({ sealedTokens: identities.sealedTokens })
      .from(identities)
      .where(where)
      .orderBy(...order)
      .limit(1)
    return row?.sealedTokens ?? null
  },

  async staleTokenSeals({ sealingPrefix, afterId, limit }) {
    const rows = await db
      .select({ id: identities.id, userId: identities.userId, sealedTokens: identities.sealedTokens })
      .from(identities)
      .where(staleTokens(identities, sealingPrefix, afterId))
      .orderBy(identities.id)
      .limit(limit)
    // `staleTokens` leaves out identities without tokens: the filter only narrows the type.
    return rows.flatMap(({ sealedTokens, ...row }) => (sealedTokens === null ? [] : [{ ...row, sealedTokens }]))
  },

  async countStaleTokenSeals(sealingPrefix) {
    return db.$count(identities, staleTokens(identities, sealingPrefix))
  },

  async resealIdentityTokens(id, from, to) {
    const written = await db
      .update(identities)
      .set({ sealedTokens: to })
      .where(tokensStill(identities, id, from))
      .returning({ id: identities.id })
    return written.length === 1
  },

  deleteIdentity: (userId, id) =>
    db.transaction(async (tx) => {
      await lockUser(tx, userId)
      const [kept] = await tx
        .select({ id: identities.id })
        .from(identities)
        .where(ownIdentity(identities, userId, id))
      if (!kept) return 'not_found'
      const [owner] = await tx.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId))
      const [passkey] = await tx.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1)
      const [other] = await tx
        .select({ id: identities.id })
        .from(identities)
        .where(otherIdentities(identities, userId, id))
        .limit(1)
      if (owner?.passwordHash === NO_PASSWORD && !passkey && !other) return 'last_sign_in'
      await tx.delete(identities).where(and(eq(identities.id, id), eq(identities.userId, userId)))
      return 'deleted'
    }),

  async createOAuthFlow(flow, now) {
    await db.delete(oauthFlows).where(spentOrExpired(oauthFlows, now))
    await db.insert(oauthFlows).values(flow)
  },

  async claimOAuthFlow(hash, now) {
    const [claimed] = await db
      .update(oauthFlows)
      .set({ usedAt: now })
      .where(claimableFlow(oauthFlows, hash, now))
      .returning(flowColumns(oauthFlows))
    return claimed ?? null
  },

  pruneOAuthFlows: (now, limit) => postgresDeleteBatch(db, oauthFlows, oauthFlows.hash, spentOrExpired(oauthFlows, now), limit),
})
