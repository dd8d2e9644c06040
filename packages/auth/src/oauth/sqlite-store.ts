/**
 * The social sign-in facet on SQLite, for every driver (`sqlite/db.ts`). Creating an account with
 * its identity is one atomic step of guarded statements: the user is inserted unless its email is
 * taken, the identity only when that user now exists, and the user is taken back out when the
 * identity was linked meanwhile; the other steps are one statement each.
 */
import { and, eq, exists, ne, or, sql } from 'drizzle-orm'
import { changes, type SqliteDb, type SqliteSteps } from '../sqlite/db.js'
import { sqliteDeleteBatch } from '../sqlite/prune.js'
import { passkeys } from '../sqlite/schema.js'
import { users } from '../sqlite/tables.js'
import { spentOrExpired } from '../store/predicates.js'
import { NO_PASSWORD } from '../store/rows.js'
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
import { identities, oauthFlows } from './sqlite-tables.js'
import type { IdentityLink, IdentityStore, NewIdentity } from './store.js'

export const sqliteIdentities = (db: SqliteDb, steps: SqliteSteps): IdentityStore => {
  const linkedTo = async (identity: NewIdentity): Promise<IdentityLink> => {
    const [owner] = await db
      .select({ userId: identities.userId })
      .from(identities)
      .where(identityOf(identities, identity.issuer, identity.subject))
    return owner?.userId === identity.userId ? 'already_linked' : 'in_use'
  }
  const one = sql`1`
  return {
    async findIdentity(issuer, subject) {
      const [row] = await db
        .select(listedColumns(identities))
        .from(identities)
        .where(identityOf(identities, issuer, subject))
      return row ?? null
    },

    async listIdentities(userId) {
      const rows = await db.select(listedColumns(identities)).from(identities).where(eq(identities.userId, userId))
      return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    },

    async createFederatedUser(user, identity) {
      const taken = exists(
        db
          .select({ one })
          .from(identities)
          .where(identityOf(identities, identity.issuer, identity.subject)),
      )
      const created = exists(db.select({ one }).from(users).where(eq(users.id, user.id)))
      const results = await steps.atomic([
        db
          .insert(users)
          .values({ ...user, passwordHash: NO_PASSWORD })
          .onConflictDoNothing(),
        // Columns in the table's order: id, user, provider, issuer, subject, email, tokens, created, used.
        db.insert(identities).select(
          sql`select ${identity.id}, ${user.id}, ${identity.provider}, ${identity.issuer}, ${identity.subject},
                ${identity.email}, ${identity.sealedTokens}, ${identity.createdAt.getTime()}, null where ${created} and not ${taken}`,
        ),
        db
          .delete(users)
          .where(
            and(eq(users.id, user.id), sql`not exists (select 1 from ${identities} where ${identities.userId} = ${user.id})`),
          ),
      ])
      if (changes(results[0]) === 0) return 'email_taken'
      return changes(results[1]) === 1 ? 'created' : 'identity_taken'
    },

    async linkIdentity(identity) {
      const rows = await db
        .insert(identities)
        .values({ ...identity, lastUsedAt: null })
        .onConflictDoNothing()
        .returning({ id: identities.id })
      return rows.length === 1 ? 'linked' : linkedTo(identity)
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
      return (
        changes(
          await db
            .update(identities)
            .set({ sealedTokens: to })
            .where(tokensStill(identities, id, from))
            .run(),
        ) === 1
      )
    },

    async deleteIdentity(userId, id) {
      const password = db
        .select({ one })
        .from(users)
        .where(and(eq(users.id, userId), ne(users.passwordHash, NO_PASSWORD)))
      const passkey = db.select({ one }).from(passkeys).where(eq(passkeys.userId, userId))
      const other = db
        .select({ one })
        .from(identities)
        .where(otherIdentities(identities, userId, id))
      const deleted = await db
        .delete(identities)
        .where(and(ownIdentity(identities, userId, id), or(exists(password), exists(passkey), exists(other))))
        .returning({ id: identities.id })
      if (deleted.length === 1) return 'deleted'
      const [kept] = await db
        .select({ id: identities.id })
        .from(identities)
        .where(ownIdentity(identities, userId, id))
      return kept ? 'last_sign_in' : 'not_found'
    },

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

    pruneOAuthFlows: (now, limit) => sqliteDeleteBatch(db, oauthFlows, oauthFlows.hash, spentOrExpired(oauthFlows, now), limit),
  }
}
