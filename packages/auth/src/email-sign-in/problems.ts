/** Sign-in by email: the problem codes it adds to the error table (`errors.ts`), each with its status and title. */
import type { ProblemTable } from '../errors.js'

export const emailSignInProblems = {
  invalid_sign_in: [401, 'Invalid or expired sign-in link or code'],
} as const satisfies ProblemTable
