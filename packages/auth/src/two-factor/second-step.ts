/**
 * The second step of every sign-in method (docs/reference/two-factor.md#signing-in): the one narrow
 * hook the first steps (password login, passkey login without user verification, sign-in by
 * email) ask. For an account with a second factor it answers a challenge (the 202 body) instead
 * of a session; `null` otherwise. `credentialsVersion` is the one the first step read, so a reset
 * since then opens nothing. Two-factor owns the challenge; the app's codes and recovery codes
 * answer it, and another method joins as a {@link SecondStepMethod} (passkeys: request options
 * bound to this challenge alone, docs/reference/passkeys.md#a-passkey-as-the-second-step).
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { methodOf, type Notifier } from '../notify.js'
import { tokenHash } from '../opaque-token.js'
import { jsonContent, settingCookies } from '../openapi.js'
import type { SecondStepAlternative, SecondStepMethod } from '../second-step-method.js'
import type { FirstFactor, Store, UserRecord } from '../store/types.js'
import { CHALLENGE_SECONDS, type TwoFactorCore } from './factor.js'

/** The challenge, as the 202 body documents it, with what each method adds. */
export const challengeSchema = (methods: readonly SecondStepMethod[]) =>
  z
    .object({
      twoFactorRequired: z.literal(true),
      challenge: z.string().max(64).openapi({ description: 'Single use; send it with a code to POST /auth/two-factor/verify' }),
      expiresIn: z.int().min(1).max(3600).openapi({ format: 'int32', description: 'Seconds the challenge lives', example: 300 }),
      methods: z
        .array(z.enum(['totp', 'recovery', ...methods.map(({ method }) => method)]))
        .max(2 + methods.length)
        .openapi({ description: 'What may answer the challenge: `passkey` when the account has one' }),
      ...Object.fromEntries(methods.map(({ offer }) => [offer.field, offer.schema])),
    })
    .openapi('TwoFactorChallenge')

export type Challenge = {
  twoFactorRequired: true
  challenge: string
  expiresIn: number
  methods: string[]
} & Record<string, unknown>

export interface SecondStep {
  /**
   * The documented 202 of a sign-in whose second step is due: the challenge, no token and no
   * refresh cookie yet, the device cookie set. `why` says what the first step proved.
   */
  response(why: string): ReturnType<typeof settingCookies>
  /**
   * The challenge when the account has a second factor on; `null`: open the session. `firstFactor`
   * is what the first step was, kept with the challenge so the session's `amr` names both.
   */
  due(c: Context, userId: string, credentialsVersion: number, firstFactor: FirstFactor): Promise<Challenge | null>
  /** Every method the features declare (the documented shape), and those that are on. */
  methods: readonly SecondStepMethod[]
  alternatives: readonly SecondStepAlternative[]
}

export const secondStep = <U extends UserRecord>({
  store,
  notify,
  twoFactor,
  methods,
  alternatives,
}: {
  store: Store<U>
  notify: Notifier
  twoFactor: TwoFactorCore
  /** Every method the features declare, on or off: the documented shape. */
  methods: readonly SecondStepMethod[]
  /** The methods that are on. */
  alternatives: readonly SecondStepAlternative[]
}): SecondStep => {
  const schema = challengeSchema(methods)
  return {
    methods,
    alternatives,
    response: (why) =>
      settingCookies(
        jsonContent(
          schema,
          `${why} and the account has two-factor authentication on: no token and no refresh cookie yet (the device cookie is set); finish with POST /auth/two-factor/verify`,
        ),
        'device',
      ),
    async due(c, userId, credentialsVersion, firstFactor) {
      if (!(await store.findTwoFactor(userId))?.enabledAt) return null
      const challenge = await twoFactor.challenge(userId, credentialsVersion, firstFactor)
      notify.event(c, { type: 'login.challenged', method: methodOf(firstFactor), userId })
      const offered: Challenge = {
        twoFactorRequired: true,
        challenge,
        expiresIn: CHALLENGE_SECONDS,
        methods: ['totp', 'recovery'],
      }
      for (const alternative of alternatives) {
        const added = await alternative.offer(userId, tokenHash(challenge), firstFactor)
        if (!added) continue
        offered.methods.push(alternative.method)
        Object.assign(offered, added)
      }
      return offered
    },
  }
}
