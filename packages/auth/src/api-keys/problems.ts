/** API keys: the problem codes it adds to the error table (`errors.ts`), each with its status and title. */
import type { ProblemTable } from '../errors.js'

export const apiKeyProblems = {
  insufficient_scope: [403, 'Insufficient scope'],
  session_required: [403, 'Session required'],
  too_many_keys: [409, 'Too many API keys'],
} as const satisfies ProblemTable
