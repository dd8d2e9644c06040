/**
 * The storage contract of the library. A store speaks the domain: it creates users and
 * sessions, rotates refresh values and spends reset tokens, each single-use operation atomic.
 * Every store runs the same conformance suite (`@latchkey/auth/testing`).
 * Stores hold only SHA-256 hashes of refresh values and reset tokens, never the values.
 */

/** A user as the store keeps it, without the password hash. Policies read it as `user.raw`. */
export interface UserRecord {
  id: string
  name: string
  email: string
  /** Free-form role string. The library never interprets it; policies may. */
  role: string | null
  createdAt: Date
}

/** The credentials version of a new account (the column's default). */
export const INITIAL_CREDENTIALS_VERSION = 0

/** A user together with the stored password hash: only login and password changes see it. */
export interface UserWithHash<U extends UserRecord = UserRecord> {
  user: U
  passwordHash: string
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
}

export interface SessionRecord {
  id: string
  userId: string
  createdAt: Date
  /** Last login or refresh: the idle lifetime runs from here. */
  refreshedAt: Date
}

export interface NewSession {
  id: string
  userId: string
  refreshHash: string
  now: Date
  /** The credentials version of the password just verified (or just set, at signup). */
  credentialsVersion: number
}

export interface RotateRefreshInput {
  /**
   * The session the presented value names (the refresh cookie is `<session id>.<value>`), or
   * `null` for a value from before 0.2, which is looked up by its hash and can only be current.
   */
  sessionId: string | null
  /** Hash of the value the client presented. */
  hash: string
  /** Hash of the value that replaces it. */
  nextHash: string
  now: Date
  /** A value rotated away less than this long ago is refused without revoking anything. */
  graceMs: number
  /** The session dies when not refreshed for this long. */
  idleMs: number
  /** The session dies this long after login, however often refreshed. */
  absoluteMs: number
}

/**
 * Outcome of {@link Store.rotateRefresh}. A session keeps only its current value and the one it
 * replaced (one row per session, however often it refreshes):
 * - `rotated`: the presented value was current; it is now spent and `nextHash` is current.
 * - `race`: the value is the one replaced less than `graceMs` ago (parallel tabs); nothing changed.
 * - `reused`: the session exists but the value is not its current one (an older value, presented
 *   after the race window): the whole session has been deleted.
 * - `expired`: the session is past its idle or absolute lifetime: it has been deleted.
 * - `unknown`: no such session (or, for a value without a session id, no session has it as current).
 */
export type RotateResult<U extends UserRecord = UserRecord> =
  | { status: 'rotated'; session: SessionRecord; user: U }
  | { status: 'race' | 'reused' | 'expired' | 'unknown' }

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
  /** The session that made the change keeps working; `null` revokes them all. */
  keepSessionId: string | null
}

export interface ConsumeResetInput {
  tokenHash: string
  now: Date
  /** The new password's hash, stored in the same atomic step. */
  passwordHash: string
}

/**
 * What the library needs from a database. All methods are async so that network databases fit.
 *
 * @example
 * import { sqliteStore } from '@latchkey/auth/sqlite'
 * const store = sqliteStore(new Database('app.db'))
 */
export interface Store<U extends UserRecord = UserRecord> {
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
   * the password, bumps the version, deletes every session of the user except `keepSessionId`
   * and every unused reset token. Answers `false`, changing nothing, when the version moved on.
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
  /** The session and its user as they are now, in one lookup; `null` when revoked. */
  findSession(sessionId: string): Promise<{ session: SessionRecord; user: U } | null>
  /** Atomically spends the presented refresh value and makes `nextHash` current. */
  rotateRefresh(input: RotateRefreshInput): Promise<RotateResult<U>>
  deleteSession(sessionId: string): Promise<void>

  /** Stores a reset token; every earlier unused token of the user dies. */
  createResetToken(input: NewResetToken): Promise<void>
  /** The owner of an unused, unexpired token, without spending it. */
  findResetToken(tokenHash: string, now: Date): Promise<{ userId: string; email: string } | null>
  /**
   * Atomically spends an unused, unexpired token, sets the new password hash, bumps the
   * credentials version and deletes every session and every other unused reset token of the owner. Answers the owner's id, or `null` when the token is not redeemable.
   */
  consumeResetToken(input: ConsumeResetInput): Promise<string | null>
}
