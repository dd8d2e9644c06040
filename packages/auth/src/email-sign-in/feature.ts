/**
 * Sign-in by email (docs/reference/email-sign-in.md), one feature folder: its two routes
 * (`start.ts`, `verify.ts`), what a mail is made of (`flow.ts`), its store facet (`store.ts`, with
 * one file per database family) and its conformance file (`conformance.ts`).
 * It mails `kind: 'sign-in'` and reports `login.succeeded` / `login.failed` with `method: 'email'`.
 */
import { defineFeature } from '../feature.js'
import { resolveEmailSignInOptions } from './options.js'
import { startEmailSignIn } from './start.js'
import { verifyEmailSignIn } from './verify.js'

export const emailSignInFeature = defineFeature({
  name: 'email-sign-in',
  options: resolveEmailSignInOptions,
  routes: (deps) => {
    startEmailSignIn(deps)
    verifyEmailSignIn(deps)
  },
  /** Used or expired sign-in mails. */
  sweep: { emailSignIns: (store, now, limit) => store.pruneEmailSignIns(now, limit) },
})
