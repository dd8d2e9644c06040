/**
 * The second factor's rules (docs/reference/two-factor.md), between the routes and the store: opening the sealed
 * key (and re-sealing one sealed under a rotated-away secret), spending a code exactly once, and
 * issuing login challenges. The routes decide what to answer; this decides what a code is worth.
 */
import { opaqueToken, tokenHash } from '../opaque-token.js'
import type { SecretBox } from '../secret-box.js'
import type { FirstFactor, Store, UserRecord } from '../store/types.js'
import { canonicalRecoveryCode, newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js'
import type { TwoFactorRecord } from './store.js'
import { matchingStep } from './totp.js'

/** A challenge lives five minutes (docs/reference/two-factor.md#signing-in). */
export const CHALLENGE_SECONDS = 300
/** The fifth wrong code kills a challenge. */
export const CHALLENGE_MAX_FAILURES = 5

/** Which kind of code was spent. */
export type SpentCode = 'totp' | 'recovery'

export type TwoFactorCore = ReturnType<typeof twoFactorCore>

export const twoFactorCore = <U extends UserRecord>({
  store,
  box,
  now,
}: {
  store: Store<U>
  box: SecretBox
  now: () => Date
}) => {
  /** The key of a stored factor, or `null` when no current secret opens it. A stale seal is renewed. */
  const keyOf = async (userId: string, factor: TwoFactorRecord): Promise<Uint8Array | null> => {
    const opened = await box.open(factor.secret, userId)
    if (opened?.stale) await store.resealTwoFactor(userId, factor.secret, await box.seal(opened.plain, userId))
    return opened?.plain ?? null
  }

  /**
   * The time step of `code` for a factor's key, when it is one of the accepted steps and newer
   * than the last used one; `null` otherwise. Nothing is spent.
   */
  const freshStep = async (userId: string, factor: TwoFactorRecord, code: string): Promise<number | null> => {
    const key = await keyOf(userId, factor)
    const step = key && matchingStep(key, code, now())
    if (step === null || step === undefined) return null
    return factor.lastStep !== null && step <= factor.lastStep ? null : step
  }

  return {
    /** Seals new keys. */
    box,
    keyOf,
    freshStep,

    /**
     * Spends `code` for an enabled factor, atomically: a TOTP code's step (never again, nor an
     * older one), or an unused recovery code when `recovery` allows it. Answers what was spent,
     * or `null` for a wrong, replayed or used code.
     */
    async spend(userId: string, factor: TwoFactorRecord, code: string, recovery: boolean): Promise<SpentCode | null> {
      if (/^[0-9]{6}$/.test(code)) {
        const step = await freshStep(userId, factor, code)
        return step !== null && (await store.useTotpStep(userId, step)) ? 'totp' : null
      }
      const canonical = recovery ? canonicalRecoveryCode(code) : null
      if (canonical === null) return null
      return (await store.useRecoveryCode(userId, recoveryCodeHash(userId, canonical), now())) ? 'recovery' : null
    },

    /** A fresh set of recovery codes: the codes to show once, and the hashes to store. */
    recoveryCodes(userId: string) {
      const codes = newRecoveryCodes()
      return { codes, hashes: codes.map((code) => recoveryCodeHash(userId, code.replaceAll('-', ''))) }
    },

    /** Issues a login challenge for the first step just passed (`firstFactor`); answers the value for the client. */
    async challenge(userId: string, credentialsVersion: number, firstFactor: FirstFactor): Promise<string> {
      const challenge = opaqueToken()
      await store.createChallenge({
        hash: tokenHash(challenge),
        userId,
        credentialsVersion,
        firstFactor,
        expiresAt: new Date(now().getTime() + CHALLENGE_SECONDS * 1000),
      })
      return challenge
    },
  }
}
