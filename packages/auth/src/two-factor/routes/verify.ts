/**
 * POST /two-factor/verify (docs/reference/two-factor.md#signing-in): finishes a sign-in that
 * answered 202, with a code of the app, a recovery code or a passkey. The challenge is hashed and
 * read once, before the limit (its account is the limit's key), and the handler reuses both; the
 * claim is the atomic step, a conditional write the read guards (a challenge with no row is
 * refused without one).
 */

import { z } from '@hono/zod-openapi'
import { refuseDisabled } from '../../account-disabled.js'
import { AuthError } from '../../errors.js'
import { storableString } from '../../fields.js'
import { limitBy } from '../../limits.js'
import { methodOf } from '../../notify.js'
import { tokenHash } from '../../opaque-token.js'
import { jsonBody, problemResponse, signedInResponse, unauthorizedResponse } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { SecondStepAlternative, SecondStepMethod } from '../../second-step-method.js'
import { serialPerKey } from '../../serial.js'
import { amrOf } from '../../session-proof.js'
import type { UserRecord } from '../../store/types.js'
import { AuthResultSchema } from '../../user-json.js'
import { AnyCode } from '../codes.js'
import { CHALLENGE_MAX_FAILURES, type SpentCode } from '../factor.js'

const invalidChallenge = () =>
  new AuthError('invalid_challenge', {
    detail: 'The challenge is unknown, used or expired; sign in again.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

/** The challenge and one answer: a code, or the answer of another method (a passkey). */
const verifyBody = (methods: readonly SecondStepMethod[]) => {
  const answers = (body: Record<string, unknown>) =>
    [body.code, ...methods.map(({ answer }) => body[answer.field])].filter((value) => value !== undefined).length
  return z
    .object({
      challenge: storableString().min(1).max(1024),
      code: AnyCode.optional(),
      ...Object.fromEntries(methods.map(({ answer }) => [answer.field, answer.schema])),
    })
    .refine((body) => answers(body) === 1, {
      message: `Send either a code or ${methods.map(({ named }) => named).join(' or ')}`,
      path: ['code'],
    })
    .openapi('TwoFactorVerifyRequest')
}

export const verifyTwoFactor = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'sessions' | 'twoFactor' | 'devices' | 'secondStep'>,
) => {
  const { route, store, notify, options, sessions, twoFactor, devices, secondStep } = deps
  const attempts = serialPerKey()
  route.public(
    {
      method: 'post',
      path: '/two-factor/verify',
      operationId: 'verifyTwoFactor',
      tags: ['two-factor'],
      summary: 'Finish a sign-in that answered 202 with a code from the app, a recovery code or a passkey',
      request: { body: jsonBody(verifyBody(secondStep.methods)) },
      responses: {
        200: signedInResponse(AuthResultSchema),
        400: problemResponse('Invalid input'),
        403: problemResponse('The code is right and an operator disabled the account (`account_disabled`)'),
        401: unauthorizedResponse('A wrong code (the fifth kills the challenge), or an unknown, used or expired challenge'),
      },
    },
    {
      peek: { challenge: z.string().max(1024) },
      // Per address, and per the account whose password step made the challenge.
      lookup: async ({ peek }): Promise<{ hash: string; userId?: string } | null> => {
        if (peek.challenge === undefined) return null
        const hash = tokenHash(peek.challenge)
        const found = await store.findChallenge(hash, options.now())
        return found ? { hash, userId: found.userId } : { hash }
      },
      limit: { name: 'two-factor-verify', keys: [limitBy.ip, limitBy.user] },
    },
    async (c) => {
      const body = c.req.valid('json') as { code?: string } & Record<string, unknown>
      const { code } = body
      // The other method the body answers with, if it is on.
      const method = secondStep.methods.find(({ answer }) => body[answer.field] !== undefined)
      const alternative = method && secondStep.alternatives.find((on) => on.method === method.method)
      // The body's challenge, as the lookup hashed and read it (validation accepts only a string
      // the peek reads as it is). Without a row there is nothing to claim: the read is the
      // claim's guard, and the claim (the atomic step) judges use, expiry and failures.
      const looked = c.var.subject
      if (!looked?.userId) throw invalidChallenge()
      const { hash } = looked
      // One attempt at a time: concurrent attempts on one challenge take turns in this process
      // (each is judged, and each wrong one counts), and find it claimed from another instance.
      return attempts(hash, async () => {
        const claimed = await store.claimChallenge(hash, options.now(), CHALLENGE_MAX_FAILURES)
        if (!claimed) throw invalidChallenge()
        const { userId, credentialsVersion, firstFactor } = claimed
        const factor = await store.findTwoFactor(userId)
        let spent: SpentCode | SecondStepAlternative | null = null
        if (factor?.enabledAt && code !== undefined) spent = await twoFactor.spend(userId, factor, code, true)
        else if (factor?.enabledAt && method && alternative) {
          const answer = body[method.answer.field]
          if (await alternative.verify(c, answer, { userId, boundTo: hash, firstFactor })) spent = alternative
        }
        if (!spent) {
          await store.failChallenge(hash)
          notify.event(c, { type: 'two_factor.failed', userId })
          throw new AuthError('two_factor_failed', {
            detail: 'The code is wrong or was already used.',
            headers: { 'WWW-Authenticate': 'Bearer' },
          })
        }
        const found = await store.findUserById(userId)
        if (found) refuseDisabled(found.user)
        // The first step's version: a reset or a change since then opens no session.
        const started =
          found &&
          (await sessions.start(
            c,
            found.user,
            credentialsVersion,
            amrOf(firstFactor, typeof spent === 'string' ? 'otp' : spent.factor),
          ))
        if (!started) throw invalidChallenge()
        if (spent === 'recovery') {
          notify.event(c, { type: 'recovery_code.used', userId })
          notify.mail({ kind: 'recovery-code-used', to: found.user.email, usedFor: 'sign-in' })
        }
        notify.event(c, { type: 'login.succeeded', method: methodOf(firstFactor), userId, sessionId: started.sessionId })
        devices.set(c)
        await devices.signedIn(c, found.user, started.sessionId, { notice: true })
        return c.json(started.body, 200)
      })
    },
  )
}
