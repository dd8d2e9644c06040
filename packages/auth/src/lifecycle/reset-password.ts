/**
 * POST /reset-password: spends a reset token, sets the new password and revokes every
 * session of the owner in one atomic store step. A password refused by the rules does not
 * use the token up. Invalid, used and expired tokens all get the same 400.
 */

import { z } from '@hono/zod-openapi'
import { accountEvents } from '../account-events.js'
import { whileCheckingBreach } from '../breached-check.js'
import { TokenPeek } from '../email-tokens.js'
import { AuthError } from '../errors.js'
import { NewPasswordField, storableString } from '../fields.js'
import { limitBy } from '../limits.js'
import { tokenHash } from '../opaque-token.js'
import { jsonBody, problemResponse } from '../openapi.js'
import { EMAIL_PASSWORD, isEmailPassword, normalizePassword } from '../password.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { fieldFailure } from '../validation.js'

const ResetBody = z
  .object({ token: storableString().min(1).max(1024), newPassword: NewPasswordField })
  .openapi('ResetPasswordRequest')

const invalidToken = () => new AuthError('invalid_reset_token', { detail: 'The reset token is invalid, used or expired.' })

export const resetPassword = <U extends UserRecord>(deps: Pick<RouteDeps<U>, 'route' | 'store' | 'options' | 'notify'>) => {
  const { route, store, options, notify } = deps
  route.public(
    {
      method: 'post',
      path: '/reset-password',
      operationId: 'resetPassword',
      tags: ['auth'],
      summary: 'Set a new password with a reset token; every session is signed out',
      request: { body: jsonBody(ResetBody) },
      responses: {
        204: { description: 'Password replaced; every session of the account is revoked' },
        400: problemResponse('Invalid input, a refused password, or an invalid, used or expired token'),
      },
    },
    {
      peek: TokenPeek,
      // The limit counts the email of the token's owner (docs/reference/limits.md#rate-limits), so the
      // token is looked up before it, without being spent; the handler reads the same lookup.
      lookup: ({ peek }) =>
        peek.token === undefined ? Promise.resolve(null) : store.findResetToken(tokenHash(peek.token), options.now()),
      limit: { name: 'reset-password', keys: [limitBy.ip, limitBy.ownerEmail] },
      hashes: true,
    },
    async (c) => {
      const { token, newPassword } = c.req.valid('json')
      const found = c.var.subject
      if (!found) throw invalidToken()
      if (isEmailPassword(newPassword, found.email)) throw fieldFailure('newPassword', 'password_is_email', EMAIL_PASSWORD)
      // Before the spend: a refused password leaves the token usable.
      const passwordHash = await whileCheckingBreach(
        deps,
        c,
        { password: newPassword, field: 'newPassword', endpoint: 'reset-password', userId: found.userId },
        () => c.var.hasher.hash(normalizePassword(newPassword)),
      )

      // An unverified account's reset is the first proof of its mailbox: an identity a provider
      // linked before it, without vouching for the address, goes too (a squatter keeps nothing).
      const unverified = (await store.findUserById(found.userId))?.user.emailVerified === false
      // The spend is the atomic step: it checks the token again, so a concurrent reset wins once.
      const userId = await store.consumeResetToken({
        revoke: accountEvents[unverified ? 'password-reset-first-proof' : 'password-reset'],
        tokenHash: tokenHash(token),
        now: options.now(),
        passwordHash,
      })
      if (!userId) throw invalidToken()
      notify.event(c, { type: 'password.reset', userId })
      notify.mail({ kind: 'password-changed', to: found.email })
      return c.body(null, 204)
    },
  )
}
