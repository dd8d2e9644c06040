/**
 * POST /reset-password: spends a reset token, sets the new password and revokes every
 * session of the owner in one atomic store step. A password refused by the rules does not
 * use the token up. Invalid, used and expired tokens all get the same 400.
 */
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { accountEvents } from '../account-events.js'
import { peekJson } from '../body.js'
import { AuthError } from '../errors.js'
import { NewPasswordField, storableString } from '../fields.js'
import { tokenHash } from '../opaque-token.js'
import {
  bodyGuardResponses,
  internalErrorResponse,
  jsonBody,
  overloadedResponse,
  problemResponse,
  rateLimitedResponse,
} from '../openapi.js'
import { EMAIL_PASSWORD, isEmailPassword, normalizePassword } from '../password.js'
import type { UserRecord } from '../store/types.js'
import { fieldFailure } from '../validation.js'
import { refuseBreachedPassword } from './breached.js'
import type { AuthApp, RouteDeps } from './deps.js'

const ResetBody = z
  .object({ token: storableString().min(1).max(1024), newPassword: NewPasswordField })
  .openapi('ResetPasswordRequest')

const invalidToken = () => new AuthError('invalid_reset_token', { detail: 'The reset token is invalid, used or expired.' })

export const resetPassword = <U extends UserRecord>(
  app: AuthApp,
  deps: Pick<RouteDeps<U>, 'store' | 'hasher' | 'limits' | 'options' | 'notify'>,
) => {
  const { store, hasher, limits, options, notify } = deps
  // The rate limit counts the email of the token's owner (docs/reference/limits.md#rate-limits), so the token is looked
  // up before the limit; the handler reads the same lookup: one per request.
  const lookups = new WeakMap<Context, Promise<{ userId: string; email: string } | null>>()
  const owner = (c: Context) => {
    let found = lookups.get(c)
    if (!found) {
      found = peekJson(c).then((body) => {
        const token = ((body ?? {}) as { token?: unknown }).token
        if (typeof token !== 'string' || token.length > 1024) return null
        return store.findResetToken(tokenHash(token), options.now())
      })
      lookups.set(c, found)
    }
    return found
  }
  return app.openapi(
    createRoute({
      method: 'post',
      path: '/reset-password',
      operationId: 'resetPassword',
      security: [],
      tags: ['auth'],
      summary: 'Set a new password with a reset token; every session is signed out',
      middleware: [limits.onOwner('reset-password', owner)],
      request: { body: jsonBody(ResetBody) },
      responses: {
        204: { description: 'Password replaced; every session of the account is revoked' },
        400: problemResponse('Invalid input, a refused password, or an invalid, used or expired token'),
        ...bodyGuardResponses,
        429: rateLimitedResponse,
        500: internalErrorResponse,
        503: overloadedResponse,
      },
    }),
    async (c) => {
      const { token, newPassword } = c.req.valid('json')
      const found = await owner(c)
      if (!found) throw invalidToken()
      if (isEmailPassword(newPassword, found.email)) throw fieldFailure('newPassword', 'password_is_email', EMAIL_PASSWORD)
      // Before the spend: a refused password leaves the token usable.
      await refuseBreachedPassword(deps, c, {
        password: newPassword,
        field: 'newPassword',
        endpoint: 'reset-password',
        userId: found.userId,
      })

      // The spend is the atomic step: it checks the token again, so a concurrent reset wins once.
      const userId = await store.consumeResetToken({
        revoke: accountEvents['password-reset'],
        tokenHash: tokenHash(token),
        now: options.now(),
        passwordHash: await hasher(c).hash(normalizePassword(newPassword)),
      })
      if (!userId) throw invalidToken()
      notify.event(c, { type: 'password.reset', userId })
      notify.mail({ kind: 'password-changed', to: found.email })
      return c.body(null, 204)
    },
  )
}
