/** The two-factor facet (`two-factor/store.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm'
import { type Durable, immediate, preparedOnce, type SyncSqliteDb } from '../sqlite/db.js'
import { revokeSync } from '../sqlite/revoke.js'
import { challenges, recoveryCodes, twoFactors } from '../sqlite/schema.js'
import {
  claimable,
  claimedChallengeColumns,
  newerStep,
  notSealedWith,
  oneMoreFailure,
  twoFactorColumns,
} from '../store/predicates.js'
import type { TwoFactorStore } from './store.js'

export const sqliteTwoFactor = (db: SyncSqliteDb, durable: Durable): TwoFactorStore => {
  // Every password sign-in asks whether a second step is due: built and prepared once.
  const find = preparedOnce(() => {
    const userId = sql.placeholder('userId')
    return db
      .select(twoFactorColumns(twoFactors, recoveryCodes, userId))
      .from(twoFactors)
      .where(eq(twoFactors.userId, userId))
      .prepare()
  })
  return {
    async findTwoFactor(userId) {
      return find().get({ userId }) ?? null
    },

    async setPendingTwoFactor(userId, secret, now) {
      const written = db
        .insert(twoFactors)
        .values({ userId, secret, createdAt: now })
        .onConflictDoUpdate({
          target: twoFactors.userId,
          set: { secret, createdAt: now, lastStep: null },
          setWhere: isNull(twoFactors.enabledAt),
        })
        .run()
      return written.changes === 1
    },

    async enableTwoFactor({ userId, secret, step, recoveryCodeHashes, keepSessionId, now, revoke }) {
      return durable(() =>
        db.transaction((tx) => {
          const enabled = tx
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
            .run()
          if (enabled.changes !== 1) return null
          tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run()
          tx.insert(recoveryCodes)
            .values(recoveryCodeHashes.map((hash) => ({ hash, userId })))
            .run()
          return revokeSync(tx, { userId, revoke, keepSessionId })
        }, immediate),
      )
    },

    async useTotpStep(userId, step) {
      const mine = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(twoFactors, step))
      return durable(() => db.update(twoFactors).set({ lastStep: step }).where(mine).run().changes === 1)
    },

    async useRecoveryCode(userId, codeHash, now) {
      const unused = and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))
      return durable(() => db.update(recoveryCodes).set({ usedAt: now }).where(unused).run().changes === 1)
    },

    async replaceRecoveryCodes(userId, codeHashes) {
      return db.transaction((tx) => {
        const enabled = tx
          .select({ userId: twoFactors.userId })
          .from(twoFactors)
          .where(and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt)))
          .get()
        if (!enabled) return false
        tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run()
        tx.insert(recoveryCodes)
          .values(codeHashes.map((hash) => ({ hash, userId })))
          .run()
        return true
      }, immediate)
    },

    async resealTwoFactor(userId, from, to) {
      const current = and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from))
      return db.update(twoFactors).set({ secret: to }).where(current).run().changes === 1
    },

    async staleSeals({ sealingPrefix, afterUserId, limit }) {
      return db
        .select({ userId: twoFactors.userId, secret: twoFactors.secret })
        .from(twoFactors)
        .where(
          and(notSealedWith(twoFactors, sealingPrefix), afterUserId === null ? undefined : gt(twoFactors.userId, afterUserId)),
        )
        .orderBy(twoFactors.userId)
        .limit(limit)
        .all()
    },

    async countStaleSeals(sealingPrefix) {
      return db.$count(twoFactors, notSealedWith(twoFactors, sealingPrefix))
    },

    async deleteTwoFactor({ userId, keepSessionId, revoke }) {
      return durable(() =>
        db.transaction((tx) => {
          const deleted = tx.delete(twoFactors).where(eq(twoFactors.userId, userId)).run().changes === 1
          revokeSync(tx, { userId, revoke, keepSessionId })
          return deleted
        }, immediate),
      )
    },

    async createChallenge({ hash, userId, credentialsVersion, firstFactor, expiresAt }) {
      db.insert(challenges).values({ hash, userId, credentialsVersion, firstFactor, expiresAt }).run()
    },

    async findChallenge(hash) {
      const row = db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash)).get()
      return row ?? null
    },

    async claimChallenge(hash, now, maxFailures) {
      const claimed = durable(() =>
        db
          .update(challenges)
          .set({ usedAt: now })
          .where(claimable(challenges, hash, now, maxFailures))
          .returning(claimedChallengeColumns(challenges))
          .get(),
      )
      return claimed ?? null
    },

    async failChallenge(hash) {
      db.update(challenges)
        .set({ usedAt: null, failures: oneMoreFailure(challenges) })
        .where(eq(challenges.hash, hash))
        .run()
    },
  }
}
