/**
 * The sessions facet of the {@link Store}: a session, its refresh value and its last proof. The
 * store swaps and deletes; the session core (`session.ts`) decides what a presented value means.
 */
import type { UserRecord } from './users.js'

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
 * sign-in by email (link or code), `fed` a sign-in through an OpenID Connect or OAuth 2.0 provider.
 */
export type AuthMethod = 'pwd' | 'otp' | 'mfa' | 'hwk' | 'user' | 'email' | 'fed'

/**
 * The first step of a sign-in that a second one may follow: a password, a mail (sign-in by email),
 * a passkey whose authenticator did not verify the user, or a provider (social sign-in). A
 * two-factor challenge remembers it.
 */
export type FirstFactor = Extract<AuthMethod, 'pwd' | 'email' | 'hwk' | 'fed'>

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

/** Sessions and their refresh values. */
export interface SessionStore<U extends UserRecord = UserRecord> {
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
}
