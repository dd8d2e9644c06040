/** Passkeys: the problem codes it adds to the error table (`errors.ts`), each with its status and title. */
import type { ProblemTable } from '../errors.js'

export const passkeyProblems = {
  invalid_passkey: [400, 'Passkey response refused'],
  passkey_failed: [401, 'Passkey sign-in failed'],
  last_sign_in_method: [409, 'The last way to sign in cannot be removed'],
} as const satisfies ProblemTable
