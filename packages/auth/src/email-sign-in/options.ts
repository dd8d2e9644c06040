/**
 * The `emailSignIn` option (docs/reference/email-sign-in.md), checked once at construction:
 * whether an address without an account may sign up by email.
 */
import { fail } from '../option-checks.js'

export interface EmailSignInOptions {
  /**
   * Sign-in by email (docs/reference/email-sign-in.md). `signUp: true` lets an address without an
   * account sign up by email: it gets a sign-up link and code, and using one creates the account
   * (verified, without a password; its name is the address's local part). Default `false`: such
   * an address gets no mail (and the same answer).
   */
  emailSignIn?: { signUp?: boolean }
}

export interface ResolvedEmailSignInOptions {
  /** Whether an address without an account may sign up by email. */
  emailSignUp: boolean
}

export const resolveEmailSignInOptions = (options: EmailSignInOptions): ResolvedEmailSignInOptions => {
  const emailSignUp = options.emailSignIn?.signUp ?? false
  if (typeof emailSignUp !== 'boolean') fail('emailSignIn.signUp', 'must be true or false')
  return { emailSignUp }
}
