/** The mail of sign-in by email (docs/reference/email-sign-in.md), for the lists in `features.ts`; its events are the core's `login.*` with `method: 'email'`. */

/**
 * The link's `token` and the 6-digit `code` for the browser that asked, in one mail. `signUp`: the
 * address has no account yet, and using the mail creates one.
 */
export interface SignInMail {
  kind: 'sign-in'
  to: string
  token: string
  code: string
  signUp: boolean
}
