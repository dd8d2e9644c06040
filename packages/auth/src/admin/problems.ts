/** The operators' API: the problem codes it adds to the error table (`errors.ts`), each with its status and title. */
import type { ProblemTable } from '../errors.js'

export const operatorProblems = {
  protected_user: [403, 'The account is an operator'],
  own_account: [409, 'An operator cannot do this to their own account'],
} as const satisfies ProblemTable
