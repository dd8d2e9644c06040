/**
 * Changing the email (docs/reference/lifecycle.md#email-change): POST /change-email re-checks the password (or takes a fresh
 * session, docs/guide/step-up.md) and mails a
 * `change-email` token to the new address; nothing changes yet. POST /confirm-email spends it:
 * the address becomes the account's (verified), every session ends, and the old address is told.
 */
import { createRoute, z } from '@hono/zod-openapi'
import { accountEvents } from '../account-events.js'
import { peekJson } from '../body.js'
import { emailFromBody } from '../email.js'
import { CurrentPasswordField, EmailField } from '../fields.js'
import { tokenHash } from '../opaque-token.js'
import {
  bodyGuardResponses,
  internalErrorResponse,
  jsonBody,
  jsonContent,
  MessageSchema,
  overloadedResponse,
  problemResponse,
  rateLimitedResponse,
} from '../openapi.js'
import { guardedRoute } from '../route.js'
import type { UserRecord } from '../store/types.js'
import { fieldFailure } from '../validation.js'
import { confirmHolder, passwordOrFresh } from './current-password.js'
import type { AuthApp, RouteDeps } from './deps.js'
import { invalidEmailToken, mailEmailToken, tokenOwner } from './email-tokens.js'
import { emailTaken } from './signup.js'
import { TokenBody } from './verify-email.js'

const ChangeEmailBody = z.object({ currentPassword: CurrentPasswordField, newEmail: EmailField }).openapi('ChangeEmailRequest')
const SENT = 'A confirmation link is on its way to the new address; the email changes when it is used.'

export const changeEmail = <U extends UserRecord>(
  app: AuthApp,
  deps: Pick<RouteDeps<U>, 'store' | 'hasher' | 'limits' | 'notify' | 'options' | 'guard' | 'cookie'>,
) => {
  const { store, limits, notify, options, guard, cookie } = deps
  app.openapi(
    guardedRoute(
      guard(true),
      {
        auth: true,
        fresh: options.freshAge,
        method: 'post',
        path: '/change-email',
        operationId: 'changeEmail',
        tags: ['auth'],
        summary: 'Mail a confirmation link to a new address; the email changes when it is used',
        request: { body: jsonBody(ChangeEmailBody) },
        responses: {
          202: jsonContent(MessageSchema, 'The link is on its way to the new address'),
          400: problemResponse('Invalid input, a wrong current password, or the current address'),
          409: problemResponse('Another account has this email'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
          503: overloadedResponse,
        },
      },
      // Per the new address too (docs/reference/limits.md#rate-limits), so no set of accounts can flood one mailbox.
      [passwordOrFresh(options), limits.perUser('change-email', async (c) => emailFromBody(await peekJson(c), 'newEmail'))],
    ),
    async (c) => {
      const { currentPassword, newEmail } = c.req.valid('json')
      const { user } = c.var
      // The proof first: without it, nobody learns whether an address has an account.
      const found = await confirmHolder(deps, c, currentPassword)
      if (newEmail === found.user.email) throw fieldFailure('newEmail', 'invalid_value', 'New email is your current email')
      if (await store.findUserByEmail(newEmail)) throw emailTaken()
      await mailEmailToken(deps, 'change-email', user.id, newEmail)
      return c.json({ message: SENT }, 202)
    },
  )

  return app.openapi(
    createRoute({
      method: 'post',
      path: '/confirm-email',
      operationId: 'confirmEmail',
      security: [],
      tags: ['auth'],
      summary: 'Make the new address the account’s with the token from the confirmation mail',
      // Per address and per the email of the token's owner, as verify-email.
      middleware: [limits.onOwner('confirm-email', tokenOwner(deps, 'change-email'))],
      request: { body: jsonBody(TokenBody.openapi('ConfirmEmailRequest')) },
      responses: {
        204: { description: 'The email changed (verified); every session of the account is signed out' },
        400: problemResponse('Invalid input, or an invalid, used or expired token'),
        409: problemResponse('Another account took the address meanwhile; the token is spent'),
        ...bodyGuardResponses,
        429: rateLimitedResponse,
        500: internalErrorResponse,
      },
    }),
    async (c) => {
      const { token } = c.req.valid('json')
      const outcome = await store.confirmEmailChange({
        revoke: accountEvents['email-change-confirmed'],
        tokenHash: tokenHash(token),
        now: options.now(),
      })
      if (outcome.status === 'invalid') throw invalidEmailToken()
      if (outcome.status === 'taken') throw emailTaken()
      cookie.clear(c)
      notify.event(c, { type: 'email.changed', userId: outcome.userId })
      notify.mail({ kind: 'email-changed', to: outcome.oldEmail, newEmail: outcome.newEmail })
      return c.body(null, 204)
    },
  )
}
