/**
 * Re-authentication by passkey (docs/reference/passkeys.md#re-authentication): an assertion
 * answering options from `POST /passkeys/login/options`, made by one of the caller's own passkeys.
 * Anything else — another user's passkey, a wrong origin, a used challenge, a counter that went
 * back — is a wrong proof (400), as a wrong password is.
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { AuthError } from '../errors.js'
import type { Notifier } from '../notify.js'
import type { ReauthProof } from '../reauth-proof.js'
import type { PasskeyCore } from './ceremony.js'
import { AuthenticationResponseSchema } from './schemas.js'

export const PasskeyProofSchema = z
  .object({
    challengeId: z.string().min(1).max(64).openapi({ description: 'From POST /auth/passkeys/login/options' }),
    response: AuthenticationResponseSchema,
  })
  .openapi('PasskeyProof', { description: 'An assertion answering options from POST /auth/passkeys/login/options' })

export type PasskeyProof = z.infer<typeof PasskeyProofSchema>

export const wrongPasskey = () =>
  new AuthError('invalid_passkey', {
    detail: 'The passkey was not accepted: use one of your own passkeys, with new options.',
  })

/**
 * The passkey as a proof of `POST /reauth`: checks the assertion as the caller's (`userId`) and
 * answers whether the authenticator verified the user. The challenge is spent whatever the outcome.
 */
export const passkeyProof = (passkeys: PasskeyCore, notify: Notifier): ReauthProof => ({
  field: 'passkey',
  schema: PasskeyProofSchema,
  named: 'a passkey',
  method: 'hwk',
  wrong: wrongPasskey,
  async prove(c: Context, userId: string, value: unknown) {
    const { challengeId, response } = value as PasskeyProof
    const outcome = await passkeys.verifyAssertion(response, 'login', { challenge: challengeId, userId })
    if (!outcome.ok) {
      if (outcome.regressed)
        notify.event(c, { type: 'passkey.counter_regressed', userId: outcome.regressed.userId, passkeyId: outcome.regressed.id })
      throw wrongPasskey()
    }
    return { userVerified: outcome.userVerified }
  },
})
