/** The reset-token facet of the {@link Store} (docs/reference/lifecycle.md#password-change-and-reset). */
import type { Revocation } from '../account-events.js'

export interface NewResetToken {
  userId: string
  tokenHash: string
  expiresAt: Date
}

export interface ConsumeResetInput {
  tokenHash: string
  now: Date
  /** The new password's hash, stored in the same atomic step. */
  passwordHash: string
  /** What the reset revokes, applied in the same atomic step (`accountEvents['password-reset']`; of an unverified account `'password-reset-first-proof'`). */
  revoke: Revocation
}

/** Reset tokens. */
export interface ResetTokenStore {
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
}
