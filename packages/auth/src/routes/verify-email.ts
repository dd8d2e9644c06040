/**
 * POST /verify-email (docs/reference/lifecycle.md#email-verification): spends a `verify-email`
 * token and marks the account verified. Verification gates nothing by itself: an app that wants
 * it registers a policy.
 */
import { accountEvents } from '../account-events.js'
import { invalidEmailToken, TokenBody, TokenPeek, tokenOwner } from '../email-tokens.js'
import { limitBy } from '../limits.js'
import { tokenHash } from '../opaque-token.js'
import { jsonBody, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

export const verifyEmail = <U extends UserRecord>(deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options'>) => {
  const { route, store, notify, options } = deps
  route.public(
    {
      method: 'post',
      path: '/verify-email',
      operationId: 'verifyEmail',
      tags: ['auth'],
      summary: 'Mark the account verified with the token from the verification mail',
      request: { body: jsonBody(TokenBody.openapi('VerifyEmailRequest')) },
      responses: {
        204: { description: 'The account is verified' },
        400: problemResponse('Invalid input, or an invalid, used or expired token'),
      },
    },
    // As reset-password (docs/reference/limits.md#rate-limits): per address and per the email of the token's owner.
    {
      peek: TokenPeek,
      lookup: tokenOwner(deps, 'verify-email'),
      limit: { name: 'verify-email', keys: [limitBy.ip, limitBy.ownerEmail] },
    },
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
}
