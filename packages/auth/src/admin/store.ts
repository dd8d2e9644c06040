/**
 * The operators' facet of the {@link Store} (docs/guide/operators.md): finding accounts, and the
 * facts of an account an operator acts on. Each write is one atomic step that applies the
 * revocation the core hands it (`account-events.ts`); the store decides nothing.
 */
import type { Revocation } from '../account-events.js'
import type { UserRecord } from '../store/users.js'

/** Where a page of the search starts: after this account, in the search's order (newest first). */
export interface UserCursor {
  createdAt: Date
  id: string
}

/** The session core's cutoffs at the time of the request: a session refreshed or created at or before them is dead (as the sweep's). */
export interface LiveCutoffs {
  deadIfRefreshedBy: Date
  deadIfCreatedBy: Date
}

export interface UserSearch {
  /**
   * A prefix of the email or of the name, already lower-cased (and NFKC-normalised), or `null`
   * for every account. Matched as a range of an index, never by reading the whole table.
   */
  prefix: string | null
  /** The last account of the previous page, or `null` for the first page. */
  after: UserCursor | null
  /** At most this many accounts. */
  limit: number
  /** Which sessions count (`AdminUserFacts.sessions`). */
  live: LiveCutoffs
}

/** An account as an operator sees it: the record and counts, never a hash, secret or token. */
export interface AdminUserFacts<U extends UserRecord = UserRecord> {
  user: U
  /** The latest sign-in of a browser the account knows; `null` when none is remembered. */
  lastSignInAt: Date | null
  /** Whether a second factor is enabled (a pending one is not). */
  twoFactor: boolean
  passkeys: number
  /** The ids of the providers the account has identities at, sorted, each once. */
  identities: string[]
  /** Live sessions: refreshed and created after the cutoffs the core handed. */
  sessions: number
}

export interface SetDisabledInput {
  userId: string
  /** When the account is disabled; `null` enables it. */
  disabledAt: Date | null
  /** What the change revokes, applied in the same atomic step (`accountEvents['account-disabled']`). */
  revoke: Revocation
}

/** The operators' queries and actions. */
export interface AdminStore<U extends UserRecord = UserRecord> {
  /** Accounts newest first (by `createdAt`, then `id`), after `after`, at most `limit`. */
  searchUsers(search: UserSearch): Promise<AdminUserFacts<U>[]>
  /** One account with its counts; `null` when there is none. */
  findAdminUser(userId: string, live: LiveCutoffs): Promise<AdminUserFacts<U> | null>
  /**
   * Sets or clears `disabledAt` and applies `revoke`, atomically. Answers the ids of the sessions it
   * revoked, or `null` when there is no such account.
   */
  setUserDisabled(input: SetDisabledInput): Promise<string[] | null>
  /** Applies `revoke` to the account (an operator's "sign out everywhere"); answers the revoked session ids. */
  revokeUser(userId: string, revoke: Revocation): Promise<string[]>
  /** Marks the address verified; `false` when there is no such account. */
  markEmailVerified(userId: string): Promise<boolean>
}
