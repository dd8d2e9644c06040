/**
 * POST /confirm-email (docs/reference/lifecycle.md#email-change): spends a `change-email` token:
 * the address becomes the account's (verified), every session ends, and the old address is told.
 */
import { accountEvents } from '../account-events.js'
import { invalidEmailToken, TokenBody, TokenPeek, tokenOwner } from '../email-tokens.js'
import { emailTaken } from '../errors.js'
import { limitBy } from '../limits.js'
import { tokenHash } from '../opaque-token.js'
import { jsonBody, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

export const confirmEmail = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'cookie'>,
) => {
  const { route, store, notify, options, cookie } = deps
  route.public(
    {
      method: 'post',
      path: '/confirm-email',
      operationId: 'confirmEmail',
      tags: ['auth'],
      summary: 'Make the new address the account’s with the token from the confirmation mail',
      request: { body: jsonBody(TokenBody.openapi('ConfirmEmailRequest')) },
      responses: {
        204: { description: 'The email changed (verified); every session of the account is signed out' },
        400: problemResponse('Invalid input, or an invalid, used or expired token'),
        409: problemResponse('Another account took the address meanwhile; the token is spent'),
      },
    },
    // Per address and per the email of the token's owner, as verify-email.
    {
      peek: TokenPeek,
      lookup: tokenOwner(deps, 'change-email'),
      limit: { name: 'confirm-email', keys: [limitBy.ip, limitBy.ownerEmail] },
    },
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
