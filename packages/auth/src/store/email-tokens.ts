/**
 * The email-token facet of the {@link Store}: the tokens mailed to verify an address or to confirm
 * a change of it (docs/reference/lifecycle.md#email-verification, docs/reference/lifecycle.md#email-change).
 */
import type { Revocation } from '../account-events.js'

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

/** What redeeming a `verify-email` token did when it may settle the account. */
export interface SettledEmailVerification {
  userId: string
  /** The account was not verified before: this was the first proof of its mailbox, and `revoke` was applied. */
  settled: boolean
  /** Ids of the sessions `revoke` deleted (for `session.revoked`). */
  revokedSessionIds: string[]
}

/** Email tokens. */
export interface EmailTokenStore {
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
   * As {@link verifyEmail}, but `revoke` is applied only when the user was not verified yet (the
   * first proof of the mailbox settles the account, docs/reference/lifecycle.md#the-first-proof-of-the-mailbox);
   * answers what it did, or `null` (unknown, used, expired, or another kind). Of concurrent calls
   * with one token exactly one succeeds.
   */
  settleEmailVerification(input: SpendEmailTokenInput): Promise<SettledEmailVerification | null>
  /**
   * Atomically spends an unused, unexpired `change-email` token and, unless another account holds
   * the new address by now, makes it the user's email (verified) and applies `revoke`. Of
   * concurrent calls with one token exactly one is not `invalid`.
   */
  confirmEmailChange(input: SpendEmailTokenInput): Promise<EmailChangeOutcome>
}
