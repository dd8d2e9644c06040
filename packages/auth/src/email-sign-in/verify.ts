/**
 * POST /email-sign-in/verify (docs/reference/email-sign-in.md#signing-in): the mail's link token,
 * or its code with the flow that asked for it. One atomic claim spends the mail (link and code
 * alike); then the account is settled (created for a sign-up, verified, and on the first proof
 * of its mailbox stripped of whatever whoever registered the address had set) and the login's
 * second step decides between a session and the two-factor 202.
 */

import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { refuseDisabled } from '../account-disabled.js'
import { accountEvents } from '../account-events.js'
import { AuthError } from '../errors.js'
import { storableString } from '../fields.js'
import { limitBy, type Subject } from '../limits.js'
import { tokenHash } from '../opaque-token.js'
import { jsonBody, problemResponse, signedInResponse, unauthorizedResponse } from '../openapi.js'
import type { LookupFacts } from '../route-builder.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { AuthResultSchema } from '../user-json.js'
import { codeHash, SIGN_IN_MAX_ATTEMPTS } from './flow.js'

const Token = storableString().min(1).max(1024)
const Flow = storableString().min(1).max(1024)
const Code = z
  .string()
  .regex(/^[0-9]{6}$/, 'Code must be the 6 digits from the mail')
  .openapi({ example: '042917', maxLength: 6 })
const ByToken = z.object({ token: Token }).openapi('EmailSignInToken')
const ByCode = z.object({ flow: Flow, code: Code }).openapi('EmailSignInCode')
const VerifyBody = z.union([ByToken, ByCode]).openapi('EmailSignInVerifyRequest')
/** Each field read as the body's schema reads it: a body is a code exactly when it has no valid `token` and a valid flow and code. */
const VerifyPeek = { token: Token, flow: Flow, code: Code }

/** One answer for an invalid, used or expired link, a wrong code, and an unknown or dead flow. */
const invalidSignIn = () =>
  new AuthError('invalid_sign_in', {
    detail: 'The link or code is wrong, used or expired. Ask for a new mail.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

/** A local part fit for a name (1 to 100 characters): the name of an account created by email. */
const nameFrom = (email: string) => [...(email.split('@')[0] || email)].slice(0, 100).join('')

/**
 * The flow a code is tried on, while it is live: its account (a sign-up's: its address), whose
 * codes count together before one is tried. A link, or a code on no live flow, finds nothing.
 */
const codeFlow =
  <U extends UserRecord>({ store, options }: Pick<RouteDeps<U>, 'store' | 'options'>) =>
  async ({ peek }: LookupFacts<typeof VerifyPeek>): Promise<Subject | null> => {
    if (peek.token !== undefined || peek.flow === undefined || peek.code === undefined) return null
    const flow = await store.findEmailSignInFlow(tokenHash(peek.flow), options.now(), SIGN_IN_MAX_ATTEMPTS)
    return flow && (flow.userId ? { userId: flow.userId } : { email: flow.email })
  }

export const verifyEmailSignIn = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'sessions' | 'notify' | 'options' | 'devices' | 'secondStep'>,
) => {
  const { route, store, sessions, notify, options, devices, secondStep } = deps
  /**
   * The one place where sign-in by email opens a session: the method it proved (`email`, for
   * the session's record and its tokens) is passed here and nowhere else.
   */
  const openSession = (c: Context, user: U, credentialsVersion: number) => sessions.start(c, user, credentialsVersion, ['email'])

  route.public(
    {
      method: 'post',
      path: '/email-sign-in/verify',
      operationId: 'verifyEmailSignIn',
      tags: ['auth'],
      summary: 'Sign in with the link token or the code from the sign-in mail',
      description:
        'Spends the mail (its link and its code together, once). Marks the account verified; on the first proof of an unverified account its password and second factor are removed and every other session ends. An account with a second factor gets the two-factor 202.',
      request: { body: jsonBody(VerifyBody) },
      responses: {
        200: signedInResponse(AuthResultSchema),
        202: secondStep.response('The mail was right'),
        400: problemResponse('Invalid input'),
        403: problemResponse('The mail is right and an operator disabled the account (`account_disabled`)'),
        401: unauthorizedResponse(
          'An invalid, used or expired link, a wrong code (the fifth kills the mail), an unknown or dead flow, or any code while its account has had 10 codes tried in 15 minutes: one answer for all',
        ),
      },
    },
    {
      peek: VerifyPeek,
      lookup: codeFlow(deps),
      // Per address; and codes per account across its flows, refused with the one 401 before the
      // code is tried, so a refusal spends no try and tells nothing of the code
      // (docs/reference/limits.md#rate-limits). Links are counted per address only.
      limit: { name: 'email-sign-in-verify', keys: [limitBy.ip, limitBy.codes(invalidSignIn)] },
    },
    async (c) => {
      const body = c.req.valid('json')
      const proof =
        'token' in body
          ? { tokenHash: tokenHash(body.token) }
          : { flowHash: tokenHash(body.flow), codeHash: codeHash(body.flow, body.code) }
      const now = options.now()
      const claim = await store.claimEmailSignIn(proof, now, SIGN_IN_MAX_ATTEMPTS)
      const failed = (userId: string | null) => {
        notify.event(c, { type: 'login.failed', method: 'email', ...(userId ? { userId } : {}) })
        return invalidSignIn()
      }
      if (claim.status !== 'claimed') throw failed(claim.status === 'wrong' ? claim.userId : null)

      const signUp = claim.userId === null && options.emailSignUp
      const settled = await store.settleEmailSignIn({
        revoke: accountEvents['email-sign-in-settled'],
        email: claim.email,
        userId: claim.userId,
        newUser: signUp ? { id: crypto.randomUUID(), name: nameFrom(claim.email), createdAt: now } : null,
      })
      const found = settled && (await store.findUserById(settled.userId))
      if (!settled || !found) throw failed(claim.userId)
      const { user } = found
      refuseDisabled(user)
      const { credentialsVersion } = settled
      if (settled.settled) notify.event(c, { type: 'email.verified', userId: user.id })
      for (const sessionId of settled.revokedSessionIds) notify.event(c, { type: 'session.revoked', userId: user.id, sessionId })

      const second = await secondStep.due(c, user.id, credentialsVersion, 'email')
      if (second) {
        // The browser keeps its device id through the second step, which then finds it new or known.
        devices.set(c)
        return c.json(second, 202)
      }
      // Settling bumped the version it returned: a reset since then opens nothing.
      const started = await openSession(c, user, credentialsVersion)
      if (!started) throw failed(user.id)
      const opened = { userId: user.id, sessionId: started.sessionId }
      if (settled.created) notify.event(c, { type: 'signup', ...opened })
      else notify.event(c, { type: 'login.succeeded', method: 'email', ...opened })
      // A new device is told about, except on the sign-in that made the account.
      devices.set(c)
      await devices.signedIn(c, user, started.sessionId, { notice: !settled.created })
      return c.json(started.body, 200)
    },
  )
}
