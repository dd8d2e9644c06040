/**
 * A passkey as the second step of a sign-in (docs/reference/passkeys.md#a-passkey-as-the-second-step):
 * when the account has passkeys, the challenge may be answered by one of them, with request
 * options whose WebAuthn challenge belongs to that challenge alone.
 */
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { Notifier } from '../notify.js'
import type { SecondStepAlternative, SecondStepMethod } from '../second-step-method.js'
import type { Store, UserRecord } from '../store/types.js'
import { challengeOf, type PasskeyCore } from './ceremony.js'
import { AuthenticationResponseSchema, RequestOptionsSchema } from './schemas.js'

/** What a passkey adds to the challenge and to the verify body, documented whether passkeys are on or not. */
export const passkeyMethod: SecondStepMethod = {
  method: 'passkey',
  named: 'a passkey',
  offer: {
    field: 'passkeyOptions',
    schema: RequestOptionsSchema.optional().openapi({
      description: 'With `passkey`: request options listing the account’s passkeys, for an answer `{ challenge, passkey }`',
    }),
  },
  answer: {
    field: 'passkey',
    schema: AuthenticationResponseSchema.optional().openapi({
      description: 'An assertion answering the challenge’s `passkeyOptions`, instead of a code',
    }),
  },
}

export const passkeyAlternative = <U extends UserRecord>(
  store: Store<U>,
  passkeys: PasskeyCore,
  notify: Notifier,
): SecondStepAlternative => ({
  method: 'passkey',
  factor: 'hwk',
  async offer(userId, boundTo, firstFactor) {
    // After a passkey that did not verify the user, a passkey again would be the same factor twice.
    if (firstFactor === 'hwk') return null
    const keys = await store.listPasskeys(userId)
    if (keys.length === 0) return null
    return { passkeyOptions: await passkeys.requestOptions('two-factor', { userId, boundTo }, keys) }
  },
  async verify(c, answer, { userId, boundTo, firstFactor }) {
    // After a passkey first step only a code is a second factor.
    if (firstFactor === 'hwk') return false
    const passkey = answer as AuthenticationResponseJSON
    // The assertion must answer this challenge's own WebAuthn challenge, by one of the account's passkeys.
    const expected = challengeOf(passkey.response.clientDataJSON)
    const outcome = expected
      ? await passkeys.verifyAssertion(passkey, 'two-factor', { challenge: expected, userId, boundTo })
      : null
    if (outcome?.ok === false && outcome.regressed)
      notify.event(c, { type: 'passkey.counter_regressed', userId, passkeyId: outcome.regressed.id })
    return outcome?.ok === true
  },
})
