/**
 * The codes of the second factor as the routes take them (docs/reference/two-factor.md), and the
 * answers to a wrong one or to a factor in the wrong state. Reauth and delete-account take
 * {@link AnyCode} too.
 */
import { z } from '@hono/zod-openapi'
import { AuthError } from '../errors.js'
import { RECOVERY_CODE_COUNT } from './recovery-codes.js'

export const TotpCode = z
  .string()
  .regex(/^[0-9]{6}$/, 'Code must be the 6 digits your authenticator app shows')
  .openapi({ minLength: 6, maxLength: 6, description: 'The current 6-digit code of the authenticator app', example: '123456' })

export const EmailCode = z
  .string()
  .regex(/^[0-9]{6}$/, 'Email code must be the 6 digits of the mail that setup sent')
  .openapi({
    minLength: 6,
    maxLength: 6,
    description: 'The 6-digit code mailed by POST /auth/two-factor/setup (10 minutes; the fifth wrong one kills it)',
    example: '654321',
  })

export const AnyCode = z
  .string()
  .max(32)
  .regex(
    /^(?:[0-9]{6}|[0-9A-Za-z]{4}[- ]?[0-9A-Za-z]{4}[- ]?[0-9A-Za-z]{4})$/,
    'Code must be 6 digits or a recovery code (xxxx-xxxx-xxxx)',
  )
  .openapi({ description: 'A 6-digit code of the authenticator app, or an unused recovery code', example: '123456' })

export const RecoveryCodesSchema = z
  .object({
    recoveryCodes: z.array(z.string().max(14)).length(RECOVERY_CODE_COUNT).openapi({
      minItems: RECOVERY_CODE_COUNT,
      maxItems: RECOVERY_CODE_COUNT,
      description: 'Single-use codes that stand in for the app once each. Shown only now.',
    }),
  })
  .openapi('RecoveryCodes')

export const wrongCode = () =>
  new AuthError('wrong_code', {
    detail: 'The code is wrong or was already used.',
    errors: [{ path: 'code', code: 'wrong_code', message: 'Code is wrong or was already used' }],
  })
export const alreadyEnabled = () =>
  new AuthError('two_factor_enabled', { detail: 'Two-factor authentication is already on; disable it first.' })
export const notEnabled = (detail = 'Two-factor authentication is not on.') => new AuthError('two_factor_not_enabled', { detail })
