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
import { challengeOf } from '../../passkeys/ceremony.js'
import { AuthenticationResponseSchema } from '../../passkeys/schemas.js'
import type { RouteDeps } from '../../route-deps.js'
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

const VerifyBody = z
  .object({
    challenge: storableString().min(1).max(1024),
    code: AnyCode.optional(),
    passkey: AuthenticationResponseSchema.optional().openapi({
      description: 'An assertion answering the challenge’s `passkeyOptions`, instead of a code',
    }),
  })
  .refine((body) => (body.code === undefined) !== (body.passkey === undefined), {
    message: 'Send either a code or a passkey',
    path: ['code'],
  })
  .openapi('TwoFactorVerifyRequest')

export const verifyTwoFactor = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'sessions' | 'twoFactor' | 'devices' | 'passkeys'>,
) => {
  const { route, store, notify, options, sessions, twoFactor, devices, passkeys } = deps
  const attempts = serialPerKey()
  route.public(
    {
      method: 'post',
      path: '/two-factor/verify',
      operationId: 'verifyTwoFactor',
      tags: ['two-factor'],
      summary: 'Finish a sign-in that answered 202 with a code from the app, a recovery code or a passkey',
      request: { body: jsonBody(VerifyBody) },
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
      const { code, passkey } = c.req.valid('json')
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
        let spent: SpentCode | 'passkey' | null = null
        if (factor?.enabledAt && code !== undefined) spent = await twoFactor.spend(userId, factor, code, true)
        // After a passkey first step only a code is a second factor (docs/reference/passkeys.md#a-passkey-as-the-second-step).
        else if (factor?.enabledAt && passkey && passkeys && firstFactor !== 'hwk') {
          // The assertion must answer this challenge's own WebAuthn challenge, by one of the account's passkeys.
          const expected = challengeOf(passkey.response.clientDataJSON)
          const outcome = expected
            ? await passkeys.verifyAssertion(passkey, 'two-factor', { challenge: expected, userId, boundTo: hash })
            : null
          if (outcome?.ok === false && outcome.regressed)
            notify.event(c, { type: 'passkey.counter_regressed', userId, passkeyId: outcome.regressed.id })
          if (outcome?.ok) spent = 'passkey'
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
          (await sessions.start(c, found.user, credentialsVersion, amrOf(firstFactor, spent === 'passkey' ? 'hwk' : 'otp')))
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
