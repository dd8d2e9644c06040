/**
 * POST /verify-email (docs/reference/lifecycle.md#email-verification): spends a `verify-email`
 * token and marks the account verified. A password set before the address was proven stays only
 * when the request comes from its holder (a live session of the account, or its password);
 * otherwise the first proof of the mailbox settles the account as a first sign-in by email does
 * (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox). Verification gates nothing by
 * itself: an app that wants it registers a policy.
 */
import { z } from '@hono/zod-openapi'
import { accountEvents } from '../account-events.js'
import { carriesSessionOf, checkCurrentPassword } from '../current-password.js'
import { invalidEmailToken, TokenBody, TokenPeek, tokenOwner } from '../email-tokens.js'
import { PasswordField } from '../fields.js'
import { limitBy } from '../limits.js'
import { tokenHash } from '../opaque-token.js'
import { jsonBody, jsonContent, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

const VerifyEmailBody = TokenBody.extend({
  password: PasswordField.optional().openapi({
    format: 'password',
    description:
      "The account's password, to keep it when the request carries no live session of the account (its access token or refresh cookie). Checked when given: wrong → 400, and the token stays usable.",
  }),
}).openapi('VerifyEmailRequest')

const PasswordRemoved = z.object({ passwordRemoved: z.literal(true) }).openapi('PasswordRemoved')

export const verifyEmail = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'identify' | 'sessions' | 'cookie'>,
) => {
  const { route, store, notify, options } = deps
  route.public(
    {
      method: 'post',
      path: '/verify-email',
      operationId: 'verifyEmail',
      tags: ['auth'],
      summary: 'Mark the account verified with the token from the verification mail',
      description:
        "Keeps a password set before the address was proven only when the request comes from its holder: it carries a live session of the account (its access token or its refresh cookie, only looked at) or the account's `password`. Otherwise the first proof of the mailbox removes that password, the second factor and a pending email change, and ends every session (200).",
      request: { body: jsonBody(VerifyEmailBody) },
      responses: {
        200: jsonContent(
          PasswordRemoved,
          'The account is verified; it was not before, and the request did not come from the holder of its password: the password is removed and every session ended (sign in by email, or reset the password)',
        ),
        204: { description: 'The account is verified; its password and sessions stay' },
        400: problemResponse('Invalid input, a wrong password (the token stays usable), or an invalid, used or expired token'),
      },
    },
    // As reset-password (docs/reference/limits.md#rate-limits): per address and per the email of
    // the token's owner; and, with a password to check, per account as every such endpoint.
    {
      peek: { ...TokenPeek, password: z.string() },
      lookup: tokenOwner(deps, 'verify-email'),
      limit: { name: 'verify-email', keys: [limitBy.ip, limitBy.ownerEmail, limitBy.passwordOwner] },
      hashes: true,
    },
    async (c) => {
      const { token, password } = c.req.valid('json')
      const owner = c.var.subject?.userId
      if (!owner) throw invalidEmailToken()
      // A password given is checked, before anything is spent.
      if (password !== undefined)
        await checkCurrentPassword(deps, { user: { id: owner }, hasher: c.var.hasher }, password, 'password')
      const spend = { tokenHash: tokenHash(token), now: options.now() }
      if (password !== undefined || (await carriesSessionOf(deps, c, owner))) {
        const userId = await store.verifyEmail({ ...spend, revoke: accountEvents['email-verified'] })
        if (!userId) throw invalidEmailToken()
        notify.event(c, { type: 'email.verified', userId })
        return c.body(null, 204)
      }
      const verified = await store.settleEmailVerification({ ...spend, revoke: accountEvents['email-verification-settled'] })
      if (!verified) throw invalidEmailToken()
      const { userId } = verified
      notify.event(c, { type: 'email.verified', userId })
      for (const sessionId of verified.revokedSessionIds) notify.event(c, { type: 'session.revoked', userId, sessionId })
      return verified.settled ? c.json({ passwordRemoved: true } as const, 200) : c.body(null, 204)
    },
  )
}
