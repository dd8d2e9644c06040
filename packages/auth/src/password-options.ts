/**
 * The options of password hashing and of what a new password must not be: the argon2id
 * parameters (never below the OWASP floor), a replacement hasher, how many hashings may run or
 * wait at once (docs/reference/limits.md), and the breached-password check (`breached-passwords.ts`).
 */
import { type BreachCheck, type BreachedPasswordsOptions, breachCheck } from './breached-passwords.js'
import { fail, positiveInteger } from './option-checks.js'
import { ARGON2_FLOOR, type Argon2Params, type PasswordHasher } from './password.js'

export interface PasswordOptions {
  /**
   * Refuses new passwords (signup, change-password, reset) seen in data breaches, by asking a
   * Pwned-Passwords-style range API with the first five hex characters of the password's SHA-1
   * only (k-anonymity, padded answers). `true`: the public service
   * (`https://api.pwnedpasswords.com`), 1.5 s timeout. When the service does not answer in time
   * or fails, the password is accepted and `breach_check.unavailable` is emitted. Never at login.
   * Default off.
   */
  breachedPasswords?: true | BreachedPasswordsOptions
  /** argon2id parameters; below the OWASP floor (m=19456, t=2, p=1) construction fails. */
  argon2?: Partial<Argon2Params>
  /**
   * Replaces the argon2id hasher (tests use a fast one from `@latchkey/auth/testing`). The
   * argon2id floor (m=19456 KiB, t=2, p=1) is NOT enforced on a custom hasher: it is yours to
   * meet. `createAuth` logs once that a custom hasher is in use.
   */
  hasher?: PasswordHasher
  /**
   * Most password hashings (hash or verify, across all requests) running or waiting at once.
   * Past it a request that would hash answers 503 with `Retry-After: 1` before hashing. Default 32.
   */
  hashQueue?: number
}

export interface ResolvedPasswordOptions {
  argon2: Argon2Params
  hashQueue: number
  /** The breached-password check of new passwords, or `null` when `breachedPasswords` is off. */
  breachCheck: BreachCheck | null
}

const resolveBreachCheck = (option: unknown): BreachCheck | null => {
  if (option === undefined || option === false) return null
  if (option !== true && (typeof option !== 'object' || option === null))
    fail('breachedPasswords', 'must be true or { url?, timeoutMs?, fetch? }')
  return breachCheck(option as true | BreachedPasswordsOptions)
}

/** The hasher itself is not resolved here: `createAuth` takes `hasher` as given, or builds argon2id from `argon2`. */
export const resolvePasswordOptions = (options: PasswordOptions): ResolvedPasswordOptions => {
  const argon2 = { ...ARGON2_FLOOR, ...options.argon2 }
  for (const key of ['memoryCost', 'timeCost', 'parallelism'] as const)
    if (!Number.isInteger(argon2[key]) || argon2[key] < ARGON2_FLOOR[key])
      fail(`argon2.${key}`, `must be an integer of at least ${ARGON2_FLOOR[key]}`)
  return {
    argon2,
    hashQueue: positiveInteger('hashQueue', options.hashQueue, 32),
    breachCheck: resolveBreachCheck(options.breachedPasswords),
  }
}
