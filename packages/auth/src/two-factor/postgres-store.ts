/** The two-factor facet (`two-factor/store.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { and, eq, gt, isNotNull, isNull } from 'drizzle-orm'
import { lockUser, type PgDb } from '../postgres/db.js'
import { postgresDeleteBatch } from '../postgres/prune.js'
import { revokePostgres } from '../postgres/revoke.js'
import {
  claimable,
  claimedChallengeColumns,
  newerStep,
  notSealedWith,
  oneMoreFailure,
  spentOrExpired,
  twoFactorColumns,
} from '../store/predicates.js'
import { challenges, recoveryCodes, twoFactors } from './postgres-tables.js'
import type { TwoFactorStore } from './store.js'

export const postgresTwoFactor = (db: PgDb): TwoFactorStore => ({
  async findTwoFactor(userId) {
    const [row] = await db
      .select(twoFactorColumns(twoFactors, recoveryCodes, userId))
      .from(twoFactors)
      .where(eq(twoFactors.userId, userId))
    return row ?? null
  },

  async setPendingTwoFactor(userId, secret, now) {
    const rows = await db
      .insert(twoFactors)
      .values({ userId, secret, createdAt: now })
      .onConflictDoUpdate({
        target: twoFactors.userId,
        set: { secret, createdAt: now, lastStep: null },
        setWhere: isNull(twoFactors.enabledAt),
      })
      .returning({ userId: twoFactors.userId })
    return rows.length === 1
  },

  async enableTwoFactor({ userId, secret, step, recoveryCodeHashes, keepSessionId, now, revoke }) {
    return db.transaction(async (tx) => {
      await lockUser(tx, userId)
      const enabled = await tx
        .update(twoFactors)
        .set({ enabledAt: now, lastStep: step })
        .where(
          and(
            eq(twoFactors.userId, userId),
            eq(twoFactors.secret, secret),
            isNull(twoFactors.enabledAt),
            newerStep(twoFactors, step),
          ),
        )
        .returning({ userId: twoFactors.userId })
      if (enabled.length !== 1) return null
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId))
      await tx.insert(recoveryCodes).values(recoveryCodeHashes.map((hash) => ({ hash, userId })))
      return revokePostgres(tx, { userId, revoke, keepSessionId })
    })
  },

  async useTotpStep(userId, step) {
    // One conditional UPDATE: concurrent callers queue on the row lock and re-read the step.
    const rows = await db
      .update(twoFactors)
      .set({ lastStep: step })
      .where(and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(twoFactors, step)))
      .returning({ userId: twoFactors.userId })
    return rows.length === 1
  },

  async useRecoveryCode(userId, codeHash, now) {
    const rows = await db
      .update(recoveryCodes)
      .set({ usedAt: now })
      .where(and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
      .returning({ hash: recoveryCodes.hash })
    return rows.length === 1
  },

  async replaceRecoveryCodes(userId, codeHashes) {
    return db.transaction(async (tx) => {
      await lockUser(tx, userId)
      const [enabled] = await tx
        .select({ userId: twoFactors.userId })
        .from(twoFactors)
        .where(and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt)))
      if (!enabled) return false
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId))
      await tx.insert(recoveryCodes).values(codeHashes.map((hash) => ({ hash, userId })))
      return true
    })
  },

  async resealTwoFactor(userId, from, to) {
    const rows = await db
      .update(twoFactors)
      .set({ secret: to })
      .where(and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from)))
      .returning({ userId: twoFactors.userId })
    return rows.length === 1
  },

  async staleSeals({ sealingPrefix, afterUserId, limit }) {
    return db
      .select({ userId: twoFactors.userId, secret: twoFactors.secret })
      .from(twoFactors)
      .where(
        and(
          notSealedWith(twoFactors.secret, sealingPrefix),
          afterUserId === null ? undefined : gt(twoFactors.userId, afterUserId),
        ),
      )
      .orderBy(twoFactors.userId)
      .limit(limit)
  },

  async countStaleSeals(sealingPrefix) {
    return db.$count(twoFactors, notSealedWith(twoFactors.secret, sealingPrefix))
  },

  async deleteTwoFactor({ userId, keepSessionId, revoke }) {
    return db.transaction(async (tx) => {
      await lockUser(tx, userId)
      const deleted = await tx.delete(twoFactors).where(eq(twoFactors.userId, userId)).returning({ userId: twoFactors.userId })
      await revokePostgres(tx, { userId, revoke, keepSessionId })
      return deleted.length === 1
    })
  },

  async createChallenge({ hash, userId, credentialsVersion, firstFactor, expiresAt }) {
    await db.insert(challenges).values({ hash, userId, credentialsVersion, firstFactor, expiresAt })
  },

  async findChallenge(hash) {
    const [row] = await db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash))
    return row ?? null
  },

  async claimChallenge(hash, now, maxFailures) {
    const [claimed] = await db
      .update(challenges)
      .set({ usedAt: now })
      .where(claimable(challenges, hash, now, maxFailures))
      .returning(claimedChallengeColumns(challenges))
    return claimed ?? null
  },

  async failChallenge(hash) {
    await db
      .update(challenges)
      .set({ usedAt: null, failures: oneMoreFailure(challenges) })
      .where(eq(challenges.hash, hash))
  },

  pruneChallenges: (now, limit) => postgresDeleteBatch(db, challenges, challenges.hash, spentOrExpired(challenges, now), limit),
})
