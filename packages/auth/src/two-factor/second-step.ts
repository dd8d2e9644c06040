/**
 * The second step of every sign-in method (docs/reference/two-factor.md#signing-in): the one narrow
 * hook the first steps (password login, passkey login without user verification, sign-in by
 * email) ask. For an account with a second factor it answers a challenge (the 202 body) instead
 * of a session; `null` otherwise. `credentialsVersion` is the one the first step read, so a reset
 * since then opens nothing. Other ways to answer the challenge join through `alternatives`:
 * passkeys add `passkey` with request options bound to this challenge alone
 * (docs/reference/passkeys.md#a-passkey-as-the-second-step).
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { methodOf, type Notifier } from '../notify.js'
import { tokenHash } from '../opaque-token.js'
import { jsonContent, settingCookies } from '../openapi.js'
import type { PasskeyCore } from '../passkeys/ceremony.js'
import { RequestOptionsSchema } from '../passkeys/schemas.js'
import type { FirstFactor, Store, UserRecord } from '../store/types.js'
import { CHALLENGE_SECONDS, type TwoFactorCore } from './factor.js'

export const ChallengeSchema = z
  .object({
    twoFactorRequired: z.literal(true),
    challenge: z.string().max(64).openapi({ description: 'Single use; send it with a code to POST /auth/two-factor/verify' }),
    expiresIn: z.int().min(1).max(3600).openapi({ format: 'int32', description: 'Seconds the challenge lives', example: 300 }),
    methods: z
      .array(z.enum(['totp', 'recovery', 'passkey']))
      .max(3)
      .openapi({ description: 'What may answer the challenge: `passkey` when the account has one' }),
    passkeyOptions: RequestOptionsSchema.optional().openapi({
      description: 'With `passkey`: request options listing the account’s passkeys, for an answer `{ challenge, passkey }`',
    }),
  })
  .openapi('TwoFactorChallenge')

export type Challenge = z.infer<typeof ChallengeSchema>

const challengeResponse = (why: string) =>
  settingCookies(
    jsonContent(
      ChallengeSchema,
      `${why} and the account has two-factor authentication on: no token and no refresh cookie yet (the device cookie is set); finish with POST /auth/two-factor/verify`,
    ),
    'device',
  )
type PasskeyRequestOptions = Awaited<ReturnType<PasskeyCore['requestOptions']>>

/** Another way to answer a challenge: what it adds to the 202 body for this account, or `null`. */
export type ChallengeAlternative = (
  userId: string,
  /** The hash of the challenge: what the alternative's own proof must be bound to. */
  boundTo: string,
  /** What the first step was: an alternative of the same kind would be the same factor twice. */
  firstFactor: FirstFactor,
) => Promise<{ method: 'passkey'; passkeyOptions: PasskeyRequestOptions } | null>

export interface SecondStep {
  /**
   * The documented 202 of a sign-in whose second step is due: the challenge, no token and no
   * refresh cookie yet, the device cookie set. `why` says what the first step proved.
   */
  response: typeof challengeResponse
  /**
   * The challenge when the account has a second factor on; `null`: open the session. `firstFactor`
   * is what the first step was, kept with the challenge so the session's `amr` names both.
   */
  due(
    c: Context,
    userId: string,
    credentialsVersion: number,
    firstFactor: FirstFactor,
  ): Promise<(Omit<Challenge, 'passkeyOptions'> & { passkeyOptions?: PasskeyRequestOptions }) | null>
}

export const secondStep = <U extends UserRecord>({
  store,
  notify,
  twoFactor,
  alternatives,
}: {
  store: Store<U>
  notify: Notifier
  twoFactor: TwoFactorCore
  alternatives: ChallengeAlternative[]
}): SecondStep => ({
  response: challengeResponse,
  async due(c, userId, credentialsVersion, firstFactor) {
    if (!(await store.findTwoFactor(userId))?.enabledAt) return null
    const challenge = await twoFactor.challenge(userId, credentialsVersion, firstFactor)
    notify.event(c, { type: 'login.challenged', method: methodOf(firstFactor), userId })
    const methods: Challenge['methods'] = ['totp', 'recovery']
    let extra: { passkeyOptions?: PasskeyRequestOptions } = {}
    for (const alternative of alternatives) {
      const added = await alternative(userId, tokenHash(challenge), firstFactor)
      if (!added) continue
      methods.push(added.method)
      extra = { ...extra, ...(added.passkeyOptions ? { passkeyOptions: added.passkeyOptions } : {}) }
    }
    return { twoFactorRequired: true, challenge, expiresIn: CHALLENGE_SECONDS, methods, ...extra }
  },
})
