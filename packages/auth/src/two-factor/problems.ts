/** The second factor: the problem codes it adds to the error table (`errors.ts`), each with its status and title. */
import type { ProblemTable } from '../errors.js'

export const twoFactorProblems = {
  invalid_challenge: [401, 'Invalid or expired two-factor challenge'],
  two_factor_failed: [401, 'Wrong two-factor code'],
  two_factor_enabled: [409, 'Two-factor authentication is already enabled'],
  two_factor_not_enabled: [409, 'Two-factor authentication is not enabled'],
} as const satisfies ProblemTable
