/**
 * The two-factor facet of the {@link Store} (docs/reference/two-factor.md): the sealed TOTP key,
 * its replay guard, recovery codes and login challenges. Each bundled store implements it in a
 * file of its own beside this one: `sqlite-store.ts` (every SQLite driver, D1 included), `postgres-store.ts`.
 */
import type { Revocation } from '../account-events.js'
import type { FirstFactor } from '../store/sessions.js'

/** A user's second factor as stored (docs/reference/two-factor.md). */
export interface TwoFactorRecord {
  /** The TOTP key, sealed by the library (AES-256-GCM): never the key itself. */
  secret: string
  /** When it was confirmed; `null` while it is pending (set up, not yet enabled). */
  enabledAt: Date | null
  /** The last time step a code was accepted for; `null` before the first. */
  lastStep: number | null
  /** Unused recovery codes left. */
  recoveryCodesLeft: number
}

export interface EnableTwoFactorInput {
  userId: string
  /** The sealed secret the code was checked against: it must still be the pending one. */
  secret: string
  /** The time step of the code that confirmed it, recorded as used. */
  step: number
  /** Hashes of the new recovery codes. */
  recoveryCodeHashes: string[]
  /** The session that enabled it, kept by `sessions: 'others'`. */
  keepSessionId: string
  /** Becomes `enabledAt`. */
  now: Date
  /** What enabling revokes, applied in the same atomic step (`accountEvents['two-factor-enabled']`). */
  revoke: Revocation
}

export interface DeleteTwoFactorInput {
  userId: string
  /** The session that turned it off, kept by `sessions: 'others'`. */
  keepSessionId: string | null
  /** What turning it off revokes, applied in the same atomic step (`accountEvents['two-factor-disabled']`). */
  revoke: Revocation
}

export interface NewChallenge {
  /** SHA-256 of the challenge handed to the client. */
  hash: string
  userId: string
  /** The credentials version read with the first factor that was verified. */
  credentialsVersion: number
  /** What that first factor was. */
  firstFactor: FirstFactor
  expiresAt: Date
}

/** The second factor. */
export interface TwoFactorStore {
  /** The user's second factor, pending or enabled; `null` when there is none. */
  findTwoFactor(userId: string): Promise<TwoFactorRecord | null>
  /**
   * Stores a pending second factor (a new setup replaces a pending one, and forgets its used
   * step). Answers `false`, writing nothing, when the user's second factor is enabled.
   */
  setPendingTwoFactor(userId: string, secret: string, now: Date): Promise<boolean>
  /**
   * Atomically, only while the pending secret is still `secret` and `step` is newer than its last
   * used step: enables it, records `step` as used, replaces the recovery codes and applies
   * `revoke`. Answers the ids of the sessions it deleted, or `null` when it enabled nothing.
   */
  enableTwoFactor(input: EnableTwoFactorInput): Promise<string[] | null>
  /**
   * The replay guard, a compare-and-set: records `step` as used only while the second factor is
   * enabled and `step` is newer than the last used one. Of concurrent calls with one step, one gets `true`.
   */
  useTotpStep(userId: string, step: number): Promise<boolean>
  /** Spends an unused recovery code of the user (by hash). Of concurrent calls with one code, one gets `true`. */
  useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean>
  /** Replaces every recovery code of the user, only while the second factor is enabled; answers whether it did. */
  replaceRecoveryCodes(userId: string, codeHashes: string[]): Promise<boolean>
  /** Re-seals the secret (after a key rotation), only while it is still `from`; answers whether it wrote. */
  resealTwoFactor(userId: string, from: string, to: string): Promise<boolean>
  /**
   * Second factors whose sealed secret does not begin with `sealingPrefix` (sealed under another
   * key than the sealing one), by user id after `afterUserId`, at most `limit`: the sweep's pages.
   */
  staleSeals(input: {
    sealingPrefix: string
    afterUserId: string | null
    limit: number
  }): Promise<{ userId: string; secret: string }[]>
  /** How many second factors' sealed secrets do not begin with `sealingPrefix`. */
  countStaleSeals(sealingPrefix: string): Promise<number>
  /** Deletes the user's second factor and applies `revoke`, atomically; answers whether there was one. */
  deleteTwoFactor(input: DeleteTwoFactorInput): Promise<boolean>
  /** Stores a login challenge (the password step passed for a two-factor account). */
  createChallenge(input: NewChallenge): Promise<void>
  /**
   * The owner of a challenge, without claiming it: the key of the per-account limit on answers.
   * Used and expired challenges count too, while their rows last (until the sweep), so every
   * answer to one of an account's challenges counts against that account. A challenge it does not
   * find is one no claim could take: verify refuses it without claiming. (`now`: for a store
   * that keeps challenges elsewhere and needs it; the shipped stores do not.)
   */
  findChallenge(hash: string, now: Date): Promise<{ userId: string } | null>
  /**
   * Claims a challenge for one attempt, atomically: only while it is unused, unexpired and has
   * fewer than `maxFailures` failures. Of concurrent claims exactly one gets it; it stays used
   * unless {@link TwoFactorStore.failChallenge} gives it back.
   */
  claimChallenge(
    hash: string,
    now: Date,
    maxFailures: number,
  ): Promise<{ userId: string; credentialsVersion: number; firstFactor: FirstFactor } | null>
  /** Gives a claimed challenge back after a wrong code, counting the failure. */
  failChallenge(hash: string): Promise<void>
  /** Deletes at most `limit` login challenges used, or expired at `now`; answers how many (the sweep's batch: fewer than `limit` means none is left). */
  pruneChallenges(now: Date, limit: number): Promise<number>
}
