/** The two-factor facet (`two-factor/store.ts`) on SQLite, for every driver: better-sqlite3, `bun:sqlite`, `node:sqlite` and D1 (`sqlite/db.ts`). */
import { and, eq, exists, gt, isNotNull, isNull, type SQL, sql } from 'drizzle-orm'
import { changes, type SqliteDb, type SqliteSteps } from '../sqlite/db.js'
import { sqliteDeleteBatch } from '../sqlite/prune.js'
import { revokeSteps } from '../sqlite/revoke.js'
import {
  claimable,
  claimedChallengeColumns,
  newerStep,
  notSealedWith,
  oneMoreFailure,
  spentOrExpired,
  twoFactorColumns,
} from '../store/predicates.js'
import { challenges, recoveryCodes, twoFactors } from './sqlite-tables.js'
import type { TwoFactorStore } from './store.js'

export const sqliteTwoFactor = (db: SqliteDb, steps: SqliteSteps): TwoFactorStore => {
  // Every password sign-in asks whether a second step is due: built and prepared once.
  const find = steps.prepared(() => {
    const userId = sql.placeholder('userId')
    return db
      .select(twoFactorColumns(twoFactors, recoveryCodes, userId))
      .from(twoFactors)
      .where(eq(twoFactors.userId, userId))
      .prepare()
  })
  /** The user's recovery codes replaced by `hashes`, only while `guard` holds. */
  const replaceCodesIf = (userId: string, hashes: string[], guard: SQL) =>
    [
      db.delete(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), guard)),
      // One term over a JSON array: D1 caps the terms of a compound SELECT below ten.
      db
        .insert(recoveryCodes)
        .select(sql`select value, ${userId}, null from json_each(${JSON.stringify(hashes)}) where ${guard}`),
    ] as const
  return {
    async findTwoFactor(userId) {
      return (await find().get({ userId })) ?? null
    },

    async setPendingTwoFactor(userId, secret, now) {
      const written = await db
        .insert(twoFactors)
        .values({ userId, secret, createdAt: now })
        .onConflictDoUpdate({
          target: twoFactors.userId,
          set: { secret, createdAt: now, lastStep: null },
          setWhere: isNull(twoFactors.enabledAt),
        })
        .run()
      return changes(written) === 1
    },

    async enableTwoFactor({ userId, secret, step, recoveryCodeHashes, keepSessionId, now, revoke }) {
      const pendingRow = and(
        eq(twoFactors.userId, userId),
        eq(twoFactors.secret, secret),
        isNull(twoFactors.enabledAt),
        newerStep(twoFactors, step),
      )
      const pending = exists(db.select({ one: sql`1` }).from(twoFactors).where(pendingRow))
      const revocation = revokeSteps(db, { userId, revoke, keepSessionId }, pending)
      const results = await steps.durable(() =>
        steps.atomic([
          revocation.userUpdate,
          ...replaceCodesIf(userId, recoveryCodeHashes, pending),
          revocation.sessions,
          ...revocation.deletes,
          db.update(twoFactors).set({ enabledAt: now, lastStep: step }).where(pendingRow),
        ]),
      )
      if (changes(results.at(-1)) !== 1) return null
      return results[3].map((row) => row.id)
    },

    async useTotpStep(userId, step) {
      const mine = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(twoFactors, step))
      return changes(await steps.durable(() => db.update(twoFactors).set({ lastStep: step }).where(mine).run())) === 1
    },

    async useRecoveryCode(userId, codeHash, now) {
      const unused = and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))
      return changes(await steps.durable(() => db.update(recoveryCodes).set({ usedAt: now }).where(unused).run())) === 1
    },

    async replaceRecoveryCodes(userId, codeHashes) {
      const enabledRow = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt))
      const enabled = exists(db.select({ one: sql`1` }).from(twoFactors).where(enabledRow))
      const [, , found] = await steps.atomic([
        ...replaceCodesIf(userId, codeHashes, enabled),
        db.select({ userId: twoFactors.userId }).from(twoFactors).where(enabledRow),
      ])
      return found.length === 1
    },

    async resealTwoFactor(userId, from, to) {
      const current = and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from))
      return changes(await db.update(twoFactors).set({ secret: to }).where(current).run()) === 1
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
        .all()
    },

    async countStaleSeals(sealingPrefix) {
      return db.$count(twoFactors, notSealedWith(twoFactors.secret, sealingPrefix))
    },

    async deleteTwoFactor({ userId, keepSessionId, revoke }) {
      // No guard: turning it off changes nothing a concurrent call could spend twice.
      const revocation = revokeSteps(db, { userId, revoke, keepSessionId }, undefined)
      const [deleted] = await steps.durable(() =>
        steps.atomic([
          db.delete(twoFactors).where(eq(twoFactors.userId, userId)),
          revocation.userUpdate,
          revocation.sessions,
          ...revocation.deletes,
        ]),
      )
      return changes(deleted) === 1
    },

    async createChallenge({ hash, userId, credentialsVersion, firstFactor, expiresAt }) {
      await db.insert(challenges).values({ hash, userId, credentialsVersion, firstFactor, expiresAt }).run()
    },

    async findChallenge(hash) {
      const row = await db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash)).get()
      return row ?? null
    },

    async claimChallenge(hash, now, maxFailures) {
      const claimed = await steps.durable(() =>
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
      await db
        .update(challenges)
        .set({ usedAt: null, failures: oneMoreFailure(challenges) })
        .where(eq(challenges.hash, hash))
        .run()
    },

    pruneChallenges: (now, limit) => sqliteDeleteBatch(db, challenges, challenges.hash, spentOrExpired(challenges, now), limit),
  }
}
