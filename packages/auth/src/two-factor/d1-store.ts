/** The two-factor facet (`two-factor/store.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { and, eq, exists, gt, isNotNull, isNull, sql } from 'drizzle-orm'
import { changes, type D1Db, insertCodesIf } from '../d1/db.js'
import { revokeD1 } from '../d1/revoke.js'
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

export const d1TwoFactor = (db: D1Db): TwoFactorStore => ({
  async findTwoFactor(userId) {
    const row = await db
      .select(twoFactorColumns(twoFactors, recoveryCodes, userId))
      .from(twoFactors)
      .where(eq(twoFactors.userId, userId))
      .get()
    return row ?? null
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
    const revocation = revokeD1(db, { userId, revoke, keepSessionId }, pending)
    const results = await db.batch([
      revocation.userUpdate,
      db.delete(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), pending)),
      insertCodesIf(db, userId, recoveryCodeHashes, pending),
      revocation.sessions,
      ...revocation.deletes,
      db.update(twoFactors).set({ enabledAt: now, lastStep: step }).where(pendingRow),
    ])
    if (changes(results.at(-1)) !== 1) return null
    return results[3].map((row) => row.id)
  },

  async useTotpStep(userId, step) {
    const mine = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(twoFactors, step))
    return changes(await db.update(twoFactors).set({ lastStep: step }).where(mine).run()) === 1
  },

  async useRecoveryCode(userId, codeHash, now) {
    const unused = and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))
    return changes(await db.update(recoveryCodes).set({ usedAt: now }).where(unused).run()) === 1
  },

  async replaceRecoveryCodes(userId, codeHashes) {
    const enabledRow = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt))
    const enabled = exists(db.select({ one: sql`1` }).from(twoFactors).where(enabledRow))
    const results = await db.batch([
      db.delete(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), enabled)),
      insertCodesIf(db, userId, codeHashes, enabled),
      db.select({ userId: twoFactors.userId }).from(twoFactors).where(enabledRow),
    ])
    return results[2].length === 1
  },

  async resealTwoFactor(userId, from, to) {
    const current = and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from))
    return changes(await db.update(twoFactors).set({ secret: to }).where(current).run()) === 1
  },

  async staleSeals({ sealingPrefix, afterUserId, limit }) {
    return db
      .select({ userId: twoFactors.userId, secret: twoFactors.secret })
      .from(twoFactors)
      .where(and(notSealedWith(twoFactors, sealingPrefix), afterUserId === null ? undefined : gt(twoFactors.userId, afterUserId)))
      .orderBy(twoFactors.userId)
      .limit(limit)
  },

  async countStaleSeals(sealingPrefix) {
    return db.$count(twoFactors, notSealedWith(twoFactors, sealingPrefix))
  },

  async deleteTwoFactor({ userId, keepSessionId, revoke }) {
    // No guard: turning it off changes nothing a concurrent call could spend twice.
    const revocation = revokeD1(db, { userId, revoke, keepSessionId }, undefined)
    const [deleted] = await db.batch([
      db.delete(twoFactors).where(eq(twoFactors.userId, userId)),
      revocation.userUpdate,
      revocation.sessions,
      ...revocation.deletes,
    ])
    return changes(deleted) === 1
  },

  async createChallenge({ hash, userId, credentialsVersion, expiresAt }) {
    await db.insert(challenges).values({ hash, userId, credentialsVersion, expiresAt }).run()
  },

  async findChallenge(hash) {
    const row = await db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash)).get()
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
      .run()
  },
})
