/**
 * POST /passkeys/login: a sign-in with a passkey. An assertion with user verification (PIN,
 * biometrics) proves two factors at once and is a complete sign-in; without it the passkey is one
 * factor, and an account with two-factor authentication on gets the 202 challenge, as a password
 * would. Every refusal (unknown credential, wrong origin or rpId, bad signature, used or expired
 * challenge, a counter that went back) answers the same 401.
 */

import { z } from '@hono/zod-openapi'
import { refuseDisabled } from '../../account-disabled.js'
import { AuthError } from '../../errors.js'
import { limitBy } from '../../limits.js'
import { jsonBody, problemResponse, signedInResponse, unauthorizedResponse } from '../../openapi.js'
import { amrOf, USER_VERIFIED_PASSKEY } from '../../session-proof.js'
import type { UserRecord } from '../../store/types.js'
import { AuthResultSchema } from '../../user-json.js'
import type { PasskeyDeps } from '../deps.js'
import { AuthenticationResponseSchema } from '../schemas.js'

export const passkeyRefused = () =>
  new AuthError('passkey_failed', {
    detail: 'The passkey was not accepted; start again with new options.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

const LoginBody = z
  .object({
    challengeId: z.string().min(1).max(64).openapi({ description: 'From POST /auth/passkeys/login/options' }),
    response: AuthenticationResponseSchema,
  })
  .openapi('PasskeyLoginRequest')

export const passkeyLogin = <U extends UserRecord>({
  route,
  passkeys,
  store,
  sessions,
  notify,
  secondStep,
  devices,
}: Pick<PasskeyDeps<U>, 'route' | 'passkeys' | 'store' | 'sessions' | 'notify' | 'secondStep' | 'devices'>) =>
  route.public(
    {
      method: 'post',
      path: '/passkeys/login',
      operationId: 'passkeyLogin',
      tags: ['passkeys'],
      summary: 'Sign in with a passkey',
      request: { body: jsonBody(LoginBody) },
      responses: {
        200: signedInResponse(AuthResultSchema),
        202: secondStep.response('The passkey did not verify the user'),
        400: problemResponse('Invalid input'),
        403: problemResponse('The passkey is right and an operator disabled the account (`account_disabled`)'),
        401: unauthorizedResponse(
          'The passkey was not accepted: unknown credential, wrong origin, bad signature, a used or expired challenge, or a signature counter that went back',
        ),
      },
    },
    { limit: { name: 'passkey-login', keys: [limitBy.ip] } },
    async (c) => {
      const { challengeId, response } = c.req.valid('json')
      const outcome = await passkeys.verifyAssertion(response, 'login', { challenge: challengeId })
      if (!outcome.ok) {
        if (outcome.regressed)
          notify.event(c, {
            type: 'passkey.counter_regressed',
            userId: outcome.regressed.userId,
            passkeyId: outcome.regressed.id,
          })
        notify.event(c, {
          type: 'login.failed',
          method: 'passkey',
          ...(outcome.regressed ? { userId: outcome.regressed.userId } : {}),
        })
        throw passkeyRefused()
      }
      const found = await store.findUserById(outcome.passkey.userId)
      if (!found) throw passkeyRefused()
      refuseDisabled(found.user)
      // Without user verification the passkey is one factor: a second factor, when on, is still due.
      if (!outcome.userVerified) {
        const second = await secondStep.due(c, found.user.id, found.credentialsVersion, 'hwk')
        if (second) {
          // The browser keeps its id through the second step, which then finds it new or known.
          devices.set(c)
          return c.json(second, 202)
        }
      }
      // RFC 8176: a hardware-bound key; with user verification also the user's PIN or biometrics, two factors.
      const amr = outcome.userVerified ? [...USER_VERIFIED_PASSKEY] : amrOf('hwk')
      const started = await sessions.start(c, found.user, found.credentialsVersion, amr)
      if (!started) throw passkeyRefused()
      notify.event(c, { type: 'login.succeeded', method: 'passkey', userId: found.user.id, sessionId: started.sessionId })
      devices.set(c)
      await devices.signedIn(c, found.user, started.sessionId, { notice: true })
      return c.json(started.body, 200)
    },
  )
