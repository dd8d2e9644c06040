/**
 * The storage contract of the library. A store keeps facts: it creates users and sessions,
 * swaps refresh values and spends reset tokens, each single-use step atomic and conditional.
 * It decides no policy: lifetimes, races and reuse are judged by the session core (`session.ts`).
 * Every store runs the same conformance suite (`@latchkey/auth/testing`).
 * Stores hold only SHA-256 hashes of refresh values and reset tokens, never the values.
 * `Store` is the intersection of the core's methods and each feature's facet
 * (`email-sign-in/store.ts`).
 */
import type { Revocation } from '../account-events.js'
import type { EmailSignInStore } from '../email-sign-in/store.js'

import type { PasskeyStore } from '../passkeys/store.js'

/** A user as the store keeps it, without the password hash. Policies read it as `user.raw`. */
export interface UserRecord {
  id: string
  name: string
  email: string
  /** Free-form role string. The library never interprets it; policies may. */
  role: string | null
  /** `true` once a verification, email-change or reset token mailed to the address was redeemed. */
  emailVerified: boolean
  createdAt: Date
}

/** The credentials version of a new account (the column's default). */
export const INITIAL_CREDENTIALS_VERSION = 0

/** A user together with the stored password hash: only login and password changes see it. */
export interface UserWithHash<U extends UserRecord = UserRecord> {
  user: U
  /** `null` for an account without a password (created or settled by sign-in by email): no password opens it. */
  passwordHash: string | null
  /**
   * The user's credentials version as read with this hash. Every password change bumps it; a
   * session or a re-hash for the password that was verified is written only while it is current.
   */
  credentialsVersion: number
}

export interface NewUser {
  id: string
  name: string
  /** Canonical email: trimmed, NFKC, lower-cased. */
  email: string
  passwordHash: string
  createdAt: Date
  /**
   * The application's extra signup fields (`signupFields`), validated. A store keeps them with the
   * user and returns them as fields of the record (never over its own fields).
   */
  profile?: Record<string, unknown> | null
}

export interface SessionRecord {
  id: string
  userId: string
  createdAt: Date
  /** Last login or refresh: the idle lifetime runs from here. */
  refreshedAt: Date
}

/**
 * A method of proof, as RFC 8176 names it: `pwd` a password, `otp` a TOTP or recovery code, `mfa`
 * two factors together, `hwk` a passkey, `user` a passkey with user verification, `email` a
 * sign-in by email (link or code).
 */
export type AuthMethod = 'pwd' | 'otp' | 'mfa' | 'hwk' | 'user' | 'email'

/**
 * When a session's holder last proved who they are, and how: set by signup, login and
 * re-authentication, never by a refresh. A route's `fresh` judges `authenticatedAt`.
 */
export interface SessionAuthentication {
  authenticatedAt: Date
  amr: AuthMethod[]
}

/** A live session as the guard reads it: its lifetimes and its last proof. */
export interface LiveSession extends SessionRecord, SessionAuthentication {}

/** A session as its owner may see it (`GET /sessions`): never a refresh hash. */
export interface SessionInfo extends SessionRecord {
  userAgent: string | null
  ip: string | null
}

export interface NewSession {
  id: string
  userId: string
  /** SHA-256 of the session key every refresh value of this session carries. */
  refreshKeyHash?: string | null
  refreshHash: string
  now: Date
  /** The credentials version of the password just verified (or just set, at signup). */
  credentialsVersion: number
  /** The methods of the proof that opened it (RFC 8176); `['pwd']` when not given. `now` is its `authenticatedAt`. */
  amr?: AuthMethod[]
  /** The `User-Agent` (at most 256 characters) and client address of the login; `null` when unknown. */
  userAgent?: string | null
  ip?: string | null
}

/**
 * A session's refresh facts as its row holds them: the core judges a presented value on them. Its
 * last proof comes along, for the access token a rotation issues (a refresh never changes it).
 */
export interface SessionRefreshState extends SessionRecord, SessionAuthentication {
  /**
   * SHA-256 of the session key: every refresh value the session issues carries it, so a value it
   * issued is told apart from one made up by someone who knows only the session id. `null` for a
   * session from before session keys (until its next rotation).
   */
  refreshKeyHash: string | null
  /** SHA-256 of the current refresh value. */
  refreshHash: string | null
  /** The value the current one replaced, kept to tell a parallel tab from reuse. */
  previousRefreshHash: string | null
  /** When the current value replaced the previous one. */
  rotatedAt: Date | null
}

export interface SwapRefreshInput {
  sessionId: string
  /** Hash of the value that must still be current. */
  from: string
  /** Hash of the value that replaces it. */
  to: string
  /** Becomes the session key's hash (the same for a session that has one). */
  keyHash: string
  /** Becomes the session's `refreshedAt` and `rotatedAt`. */
  now: Date
}

export interface ReauthenticateInput {
  sessionId: string
  /** The session's owner. */
  userId: string
  /** The version read with the password that was verified: a change since then makes this a no-op. */
  credentialsVersion: number
  /** Becomes the session's `authenticatedAt`. */
  at: Date
  amr: AuthMethod[]
}

export interface NewResetToken {
  userId: string
  tokenHash: string
  expiresAt: Date
}

export interface ReplacePasswordInput {
  userId: string
  passwordHash: string
  /** The version read with the password that was verified. */
  credentialsVersion: number
  /** The session that made the change, kept by `sessions: 'others'`; `null`: none is kept. */
  keepSessionId: string | null
  /** What the change revokes, applied in the same atomic step (`accountEvents['password-changed']`). */
  revoke: Revocation
}

export interface ConsumeResetInput {
  tokenHash: string
  now: Date
  /** The new password's hash, stored in the same atomic step. */
  passwordHash: string
  /** What the reset revokes, applied in the same atomic step (`accountEvents['password-reset']`). */
  revoke: Revocation
}

/** The kinds of token mailed to prove a mailbox (docs/reference/lifecycle.md#mail). */
export type EmailTokenKind = 'verify-email' | 'change-email'

export interface NewEmailToken {
  kind: EmailTokenKind
  userId: string
  tokenHash: string
  expiresAt: Date
  /** `change-email` only: the address the token was mailed to, which becomes the account's. */
  newEmail?: string
}

export interface SpendEmailTokenInput {
  tokenHash: string
  now: Date
  /**
   * What redeeming the token revokes, applied in the same atomic step when it changes something
   * (`accountEvents['email-verified']`, `accountEvents['email-change-confirmed']`).
   */
  revoke: Revocation
}

/** What redeeming a `change-email` token did. */
export type EmailChangeOutcome =
  | { status: 'changed'; userId: string; oldEmail: string; newEmail: string }
  /** The new address belongs to another account by now: nothing changed, and the token is spent. */
  | { status: 'taken'; userId: string }
  /** Unknown, used or expired. */
  | { status: 'invalid' }

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

/**
 * A code mailed to the account to prove the mailbox before a credential that outlives a reset is
 * added (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox): one per account at a time, stored as a hash, with a count of wrong tries.
 */
export interface NewAddCredentialCode {
  userId: string
  /** The hash of the code (the library's `addCredentialCodeHash`): never the code. */
  codeHash: string
  expiresAt: Date
}

export interface SpendAddCredentialCodeInput {
  userId: string
  codeHash: string
  now: Date
  /** The code dies when its wrong tries reach this. */
  maxFailures: number
}

export interface NewChallenge {
  /** SHA-256 of the challenge handed to the client. */
  hash: string
  userId: string
  /** The credentials version read with the password that was verified. */
  credentialsVersion: number
  expiresAt: Date
}

export interface RememberDeviceInput {
  userId: string
  /** SHA-256 of the random id in the browser's device cookie (never the id). */
  deviceHash: string
  now: Date
  /** The most devices kept per user. */
  keep: number
}

export interface PruneInput {
  /** A session last refreshed at or before this is past its idle lifetime. */
  deadIfRefreshedBy: Date
  /** A session created at or before this is past its absolute lifetime. */
  deadIfCreatedBy: Date
  /** A reset or email token or a challenge that was used, or expires at or before this, is spent. */
  now: Date
  /** A known device last seen at or before this is forgotten. */
  forgetDevicesSeenBy: Date
  /** At most this many rows of each table in one call, so no call holds a lock for long. */
  limit: number
}

/**
 * What the library needs from a database. All methods are async so that network databases fit.
 *
 * @example
 * import { sqliteStore } from '@latchkey/auth/sqlite'
 * const store = sqliteStore(new Database('app.db'))
 */
export interface Store<U extends UserRecord = UserRecord> extends EmailSignInStore, PasskeyStore {
  /** Inserts a user; answers `null` when the (canonical) email is already taken. */
  createUser(input: NewUser): Promise<U | null>
  findUserByEmail(email: string): Promise<UserWithHash<U> | null>
  findUserById(id: string): Promise<UserWithHash<U> | null>
  /**
   * Replaces the hash of the same password (re-hash after a parameter upgrade), only while the
   * credentials version is still `credentialsVersion`: a re-hash never overwrites a newer password.
   * Answers whether it wrote.
   */
  updatePasswordHash(userId: string, passwordHash: string, credentialsVersion: number): Promise<boolean>
  /**
   * Atomically, and only while the credentials version is still `credentialsVersion`: replaces
   * the password and applies `revoke`. Answers `false`, changing nothing, when the version moved on.
   */
  replacePassword(input: ReplacePasswordInput): Promise<boolean>
  /** Sets the free-form role of the user with this canonical email; `false` when there is none. */
  setRole(email: string, role: string | null): Promise<boolean>

  /**
   * Creates the session and its first refresh value, atomically and only while the user's
   * credentials version is still `input.credentialsVersion`, so a login that verified a password
   * a concurrent reset replaced opens nothing. Answers whether it created the session.
   */
  createSession(input: NewSession): Promise<boolean>
  /** The session (with its last proof) and its user as they are now, in one lookup; `null` when revoked. */
  findSession(sessionId: string): Promise<{ session: LiveSession; user: U } | null>
  /**
   * Records a new proof for a live session (re-authentication): sets its `authenticatedAt` and
   * `amr`, only while it is `userId`'s and the user's credentials version is still
   * `credentialsVersion`. Its refresh value and lifetimes stay as they are. Answers whether it wrote.
   */
  reauthenticate(input: ReauthenticateInput): Promise<boolean>
  /**
   * A session's refresh facts and its user: by the session id a refresh cookie names, or (for a
   * value issued before 0.2) by the hash of its current value. `null` when there is none.
   */
  findRefresh(ref: { sessionId: string } | { currentHash: string }): Promise<{ session: SessionRefreshState; user: U } | null>
  /**
   * The atomic step of a rotation, a compare-and-swap: only while `from` is still the session's
   * current value, makes `to` current, keeps `from` as the previous value, sets the key hash to
   * `keyHash` and `refreshedAt` and `rotatedAt` to `now`. Of concurrent callers with one `from`, exactly one gets `true`.
   */
  swapRefresh(input: SwapRefreshInput): Promise<boolean>
  deleteSession(sessionId: string): Promise<void>

  /** Stores a reset token; every earlier unused token of the user dies. */
  createResetToken(input: NewResetToken): Promise<void>
  /** The owner of an unused, unexpired token, without spending it. */
  findResetToken(tokenHash: string, now: Date): Promise<{ userId: string; email: string } | null>
  /**
   * Atomically spends an unused, unexpired token, sets the new password hash, marks the owner
   * verified (the token came by mail) and applies `revoke`. Answers the owner's id, or `null`
   * (changing nothing) when the token is not redeemable.
   */
  consumeResetToken(input: ConsumeResetInput): Promise<string | null>

  /**
   * Deletes dead rows, at most `limit` of each kind: sessions past the cutoffs the session core
   * computed, used or expired reset and email tokens and challenges, expired add-credential
   * codes, and devices last seen before `forgetDevicesSeenBy`. Answers how many of each it deleted; fewer than
   * `limit` of a kind means none of that kind is left.
   */
  prune(input: PruneInput): Promise<{
    sessions: number
    resetTokens: number
    emailTokens: number
    challenges: number
    addCredentialCodes: number
    devices: number
  }>

  /** Stores a verification or email-change token; every earlier unused token of that kind and user dies. */
  createEmailToken(input: NewEmailToken): Promise<void>
  /** The owner of an unused, unexpired token of `kind`, without spending it (the rate limit's key). */
  findEmailToken(tokenHash: string, kind: EmailTokenKind, now: Date): Promise<{ userId: string; email: string } | null>
  /**
   * Atomically spends an unused, unexpired `verify-email` token, marks its user verified and
   * applies `revoke`. Answers the user's id, or `null` (unknown, used, expired, or another kind).
   * Of concurrent calls with one token exactly one succeeds.
   */
  verifyEmail(input: SpendEmailTokenInput): Promise<string | null>
  /**
   * Atomically spends an unused, unexpired `change-email` token and, unless another account holds
   * the new address by now, makes it the user's email (verified) and applies `revoke`. Of
   * concurrent calls with one token exactly one is not `invalid`.
   */
  confirmEmailChange(input: SpendEmailTokenInput): Promise<EmailChangeOutcome>
  /** The user's sessions, every one the store holds (the core leaves out the dead), without refresh hashes. */
  listSessions(userId: string): Promise<SessionInfo[]>
  /** Deletes the session only when it is this user's; answers whether it did. */
  deleteUserSession(userId: string, sessionId: string): Promise<boolean>
  /** Deletes every session of the user except `keepSessionId`; answers the ids it deleted. */
  deleteOtherSessions(userId: string, keepSessionId: string): Promise<string[]>
  /**
   * Keeps the user's `keep` most recently used sessions (latest `refreshedAt` first, then the
   * greater id) and deletes the others in one statement; answers the ids it deleted.
   */
  trimSessions(userId: string, keep: number): Promise<string[]>
  /**
   * Deletes the user with every session and token, in one atomic step, only while the
   * credentials version is still `credentialsVersion` (the password that was re-checked).
   * Answers whether it deleted.
   */
  deleteUser(userId: string, credentialsVersion: number): Promise<boolean>

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
  /** Stores the user's add-credential code; an earlier one of the user, used or not, dies. */
  createAddCredentialCode(input: NewAddCredentialCode): Promise<void>
  /**
   * Checks and spends the user's add-credential code, atomically: when it is unexpired, has fewer
   * than `maxFailures` wrong tries and its hash is `codeHash`, it is spent (never again) and the
   * answer is `true`. Otherwise the answer is `false`, and a live code counts one more wrong try.
   * Of concurrent calls with the right hash exactly one gets `true`.
   */
  spendAddCredentialCode(input: SpendAddCredentialCodeInput): Promise<boolean>
  /** Stores a login challenge (the password step passed for a two-factor account). */
  createChallenge(input: NewChallenge): Promise<void>
  /**
   * The owner of a challenge, without claiming it: the key of the per-account limit on answers.
   * Used and expired challenges count too, while their rows last (until the sweep), so every
   * answer to one of an account's challenges counts against that account. (`now`: for a store
   * that keeps challenges elsewhere and needs it; the shipped stores do not.)
   */
  findChallenge(hash: string, now: Date): Promise<{ userId: string } | null>
  /**
   * Claims a challenge for one attempt, atomically: only while it is unused, unexpired and has
   * fewer than `maxFailures` failures. Of concurrent claims exactly one gets it; it stays used
   * unless {@link Store.failChallenge} gives it back.
   */
  claimChallenge(hash: string, now: Date, maxFailures: number): Promise<{ userId: string; credentialsVersion: number } | null>
  /** Gives a claimed challenge back after a wrong code, counting the failure. */
  failChallenge(hash: string): Promise<void>

  /**
   * Records that the user signed in from a device at `now`, as its last sign-in there. Answers
   * `true` when the device was new to the user; of concurrent calls for one new device exactly one
   * gets `true`. A new device beyond `keep` makes the user's least recently seen ones forgotten
   * (a client that drops its cookies adds one device per sign-in).
   */
  rememberDevice(input: RememberDeviceInput): Promise<boolean>
  /** Whether the user has signed in from the device (by hash) and it has not been forgotten since. */
  knowsDevice(userId: string, deviceHash: string): Promise<boolean>
}
