/**
 * The store facet of sign-in by email (docs/reference/email-sign-in.md): what a store keeps of one
 * mail (its link token, its code bound to a flow, the address and account) and the two atomic
 * steps that spend it. Each bundled store implements it in a file of its own beside this one
 * (`sqlite.ts`, `postgres.ts`, `d1.ts`); the conformance suite checks it on every store.
 */
import type { Revocation } from '../account-events.js'

export interface NewEmailSignIn {
  /** SHA-256 of the flow the request answered. */
  flowHash: string
  /** SHA-256 of the link token. */
  tokenHash: string
  /** SHA-256 of the flow and the 6-digit code together (`codeHash` in `flow.ts`). */
  codeHash: string
  /** Canonical email of the request. */
  email: string
  /**
   * SHA-256 of the device id when the request came from a browser the address's account has
   * signed in from; `null` for every other request. The address keeps one pending mail per value.
   */
  deviceHash: string | null
  expiresAt: Date
  now: Date
  /**
   * Whether a sign-in for an address WITHOUT an account may be spent (sign-up by email). When
   * `false` such a row is stored already spent: the same write for every address, and nothing
   * anyone can use.
   */
  signUp: boolean
}

/** A claim on a sign-in: the link token, or a code tried on a flow. */
export type EmailSignInProof = { tokenHash: string } | { flowHash: string; codeHash: string }

export type EmailSignInClaim =
  /** Spent now, link and code alike: the address it was for, and its account then (`null`: none). */
  | { status: 'claimed'; email: string; userId: string | null }
  /** A wrong code on a live flow, counted (`userId` of the address's account, when it had one). */
  | { status: 'wrong'; userId: string | null }
  /** Unknown, used, expired or dead (the tries are used up). */
  | { status: 'invalid' }

export interface SettleEmailSignInInput {
  /** The claimed sign-in's address and account (`null`: none when it was asked for). */
  email: string
  userId: string | null
  /** The account to create when the address has none and sign-up by email is on; `null` otherwise. */
  newUser: { id: string; name: string; createdAt: Date } | null
  /** What settling an unverified account revokes (`accountEvents['email-sign-in-settled']`). */
  revoke: Revocation
}

export interface SettledEmailSignIn {
  /** The account signed in. */
  userId: string
  /** The credentials version after this step: the new session is written only while it holds. */
  credentialsVersion: number
  /** The account was created by this step (sign-up by email). */
  created: boolean
  /**
   * The account was unverified and this was the first proof of its mailbox: `revoke` was applied.
   */
  settled: boolean
  /** Ids of the sessions deleted by settling (for `session.revoked`). */
  revokedSessionIds: string[]
}

export interface EmailSignInStore {
  /**
   * Stores a sign-in for `email`, atomically deleting every earlier one of the address with the
   * same `deviceHash` (a new mail kills the previous one's link and code, and never another
   * browser's). Answers the address's account as it is stored (`null` when there is none): the
   * mail goes to that stored address only.
   */
  startEmailSignIn(input: NewEmailSignIn): Promise<{ userId: string; email: string } | null>
  /**
   * The address and account (`null`: none) of the live sign-in of `flowHash` (live as for
   * {@link claimEmailSignIn}), without counting a try; `null` when there is none. Its codes are
   * counted per account before they are tried.
   */
  findEmailSignInFlow(flowHash: string, now: Date, maxAttempts: number): Promise<{ email: string; userId: string | null } | null>
  /**
   * One atomic claim. By token: spends a live sign-in. By code: counts one try on a live flow and
   * spends it when the code's hash matches. Live: unused, unexpired, fewer than `maxAttempts`
   * codes tried. Of concurrent claims on one sign-in at most one is `claimed`.
   */
  claimEmailSignIn(proof: EmailSignInProof, now: Date, maxAttempts: number): Promise<EmailSignInClaim>
  /**
   * After a claim, in one atomic step: creates the account when `newUser` is given and the address
   * has none; then, for the address's account (the claimed one when `userId` is set, and only
   * while it still has that address), marks it verified and, when it was not yet, applies
   * `revoke`. `null` when there is no such account.
   */
  settleEmailSignIn(input: SettleEmailSignInInput): Promise<SettledEmailSignIn | null>
  /** Deletes up to `limit` used or expired sign-ins; answers how many. */
  pruneEmailSignIns(now: Date, limit: number): Promise<number>
}
