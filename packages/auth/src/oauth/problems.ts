/** Social sign-in: the problem codes it adds to the error table (`errors.ts`), each with its status and title. */
import type { ProblemTable } from '../errors.js'

export const identityProblems = {
  last_credential: [409, 'The last way to sign in cannot be unlinked'],
} as const satisfies ProblemTable
