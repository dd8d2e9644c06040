/**
 * The users facet of the {@link Store}: creating and finding accounts, their password and role,
 * and deleting them. Every write that follows a verified password is conditional on the
 * credentials version read with it (docs/reference/lifecycle.md#credentials-version).
 */
import type { Revocation } from '../account-events.js'

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
  /**
   * When an operator disabled the account (docs/guide/operators.md); `null` while it is enabled. A
   * disabled account keeps its data, but no sign-in opens it and it has no sessions.
   */
  disabledAt: Date | null
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

/** Users: accounts, their password and role. */
export interface UserStore<U extends UserRecord = UserRecord> {
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
   * Deletes the user with every session and token, in one atomic step, only while the
   * credentials version is still `credentialsVersion` (the password that was re-checked).
   * Answers whether it deleted.
   */
  deleteUser(userId: string, credentialsVersion: number): Promise<boolean>
}
