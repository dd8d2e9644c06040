/**
 * Email verification (docs/reference/lifecycle.md#email-verification): POST /verify-email spends a `verify-email` token and marks
 * the account verified; POST /resend-verification mails a new token to an unverified account.
 * Verification gates nothing by itself: an app that wants it registers a policy.
 */
import { createRoute, z } from '@hono/zod-openapi'
import { accountEvents } from '../account-events.js'
import { storableString } from '../fields.js'
import { tokenHash } from '../opaque-token.js'
import {
  bodyGuardResponses,
  internalErrorResponse,
  jsonBody,
  jsonContent,
  MessageSchema,
  problemResponse,
  rateLimitedResponse,
} from '../openapi.js'
import { guardedRoute } from '../route.js'
import type { UserRecord } from '../store/types.js'
import type { AuthApp, RouteDeps } from './deps.js'
import { invalidEmailToken, mailEmailToken, tokenOwner } from './email-tokens.js'

export const TokenBody = z.object({ token: storableString().min(1).max(1024) })
const RESENT = 'If the address is not verified yet, a new verification link is on its way.'

export const verifyEmail = <U extends UserRecord>(
  app: AuthApp,
  deps: Pick<RouteDeps<U>, 'store' | 'limits' | 'notify' | 'options' | 'guard'>,
) => {
  const { store, limits, notify, options, guard } = deps
  app.openapi(
    createRoute({
      method: 'post',
      path: '/verify-email',
      operationId: 'verifyEmail',
      security: [],
      tags: ['auth'],
      summary: 'Mark the account verified with the token from the verification mail',
      // As reset-password (docs/reference/limits.md#rate-limits): per address and per the email of the token's owner.
      middleware: [limits.onOwner('verify-email', tokenOwner(deps, 'verify-email'))],
      request: { body: jsonBody(TokenBody.openapi('VerifyEmailRequest')) },
      responses: {
        204: { description: 'The account is verified' },
        400: problemResponse('Invalid input, or an invalid, used or expired token'),
        ...bodyGuardResponses,
        429: rateLimitedResponse,
        500: internalErrorResponse,
      },
    }),
    async (c) => {
      const { token } = c.req.valid('json')
      const userId = await store.verifyEmail({
        revoke: accountEvents['email-verified'],
        tokenHash: tokenHash(token),
        now: options.now(),
      })
      if (!userId) throw invalidEmailToken()
      notify.event(c, { type: 'email.verified', userId })
      return c.body(null, 204)
    },
  )
  return app.openapi(
    guardedRoute(
      guard(true),
      {
        auth: true,
        method: 'post',
        path: '/resend-verification',
        operationId: 'resendVerification',
        tags: ['auth'],
        summary: 'Mail a new verification link, if the address is not verified yet',
        responses: {
          202: jsonContent(MessageSchema, 'Accepted; a mail follows only for an unverified address'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
        },
      },
      [limits.perUser('resend-verification')],
    ),
    async (c) => {
      const { raw } = c.var.user
      if (!raw.emailVerified) await mailEmailToken(deps, 'verify-email', raw.id, raw.email)
      return c.json({ message: RESENT }, 202)
    },
  )
}
