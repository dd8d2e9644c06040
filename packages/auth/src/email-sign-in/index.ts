/**
 * Sign-in by email (docs/reference/email-sign-in.md), one feature folder: its two routes
 * (`start.ts`, `verify.ts`), what a mail is made of (`flow.ts`), its store facet (`store.ts`, with
 * one file per bundled dialect) and its conformance file (`testing/conformance/email-sign-in.ts`).
 * It mails `kind: 'sign-in'` and reports `login.succeeded` / `login.failed` with `method: 'email'`.
 */
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { startEmailSignIn } from './start.js'
import { verifyEmailSignIn } from './verify.js'

export const emailSignInRoutes = <U extends UserRecord>(deps: RouteDeps<U>) => {
  startEmailSignIn(deps)
  verifyEmailSignIn(deps)
}
