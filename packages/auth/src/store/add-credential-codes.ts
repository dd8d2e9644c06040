/** The add-credential-code facet of the {@link Store} (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox). */

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

/** Add-credential codes. */
export interface AddCredentialCodeStore {
  /** Stores the user's add-credential code; an earlier one of the user, used or not, dies. */
  createAddCredentialCode(input: NewAddCredentialCode): Promise<void>
  /**
   * Checks and spends the user's add-credential code, atomically: when it is unexpired, has fewer
   * than `maxFailures` wrong tries and its hash is `codeHash`, it is spent (never again) and the
   * answer is `true`. Otherwise the answer is `false`, and a live code counts one more wrong try.
   * Of concurrent calls with the right hash exactly one gets `true`.
   */
  spendAddCredentialCode(input: SpendAddCredentialCodeInput): Promise<boolean>
}
