/**
 * The problem codes the features add to the error table (`errors.ts`), listed once
 * (CONTRIBUTING.md, "Adding a feature"): each folder's `problems.ts`, pure data. A list of its own,
 * because every route imports `errors.ts`, and a list that reached the routes (`features.ts`) would
 * close a cycle of imports that run.
 */
import { operatorProblems } from './admin/problems.js'
import { apiKeyProblems } from './api-keys/problems.js'
import { emailSignInProblems } from './email-sign-in/problems.js'
import { identityProblems } from './oauth/problems.js'
import { passkeyProblems } from './passkeys/problems.js'
import { twoFactorProblems } from './two-factor/problems.js'

export const featureProblems = {
  ...twoFactorProblems,
  ...emailSignInProblems,
  ...passkeyProblems,
  ...apiKeyProblems,
  ...identityProblems,
  ...operatorProblems,
} as const
