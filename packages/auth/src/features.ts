/**
 * The features, listed once (CONTRIBUTING.md, "Adding a feature"): each folder's record, and what
 * the core composes from them: the options `createAuth` takes and resolves, the cores the routes
 * are given, and the routes themselves, in this order. Their store facets have a list of their own
 * (`feature-facets.ts`), so that a store loads no route. Outside the two lists the core names no
 * feature. The option types are listed beside the records because some are generic (the policy
 * and scope names), which a record's value cannot carry.
 */

import { adminFeature } from './admin/feature.js'
import type { OperatorMail, OperatorsEvent } from './admin/notices.js'
import type { AdminOption } from './admin/options.js'
import { type ApiKeyCore, apiKeyCore } from './api-keys/core.js'
import { apiKeyCredential } from './api-keys/credential.js'
import { apiKeysFeature } from './api-keys/feature.js'
import type { ApiKeyMail, ApiKeysEvent } from './api-keys/notices.js'
import type { ApiKeysOption } from './api-keys/options.js'
import { emailSignInFeature } from './email-sign-in/feature.js'
import type { SignInMail } from './email-sign-in/notices.js'
import type { EmailSignInOptions } from './email-sign-in/options.js'
import type { Feature, Intersection, SweepBatch } from './feature.js'
import type { HeaderCredential } from './header-credential.js'
import type { Notifier } from './notify.js'
import { type OAuthCore, oauthCore } from './oauth/core.js'

export type { ProviderTokens } from './oauth/core.js'

import { oauthFeature } from './oauth/feature.js'
import type { IdentityEvent, IdentityMail } from './oauth/notices.js'
import type { ProvidersOption } from './oauth/options.js'
import { type PasskeyCore, passkeyCore } from './passkeys/ceremony.js'
import { passkeysFeature } from './passkeys/feature.js'
import type { PasskeyMail, PasskeysEvent } from './passkeys/notices.js'
import type { PasskeysOption } from './passkeys/options.js'
import { passkeyProof } from './passkeys/reauth.js'
import { passkeyAlternative, passkeyMethod } from './passkeys/second-step.js'
import type { ReauthProof } from './reauth-proof.js'
import type { SecretBox } from './secret-box.js'
import type { StepUpCode } from './step-up-code.js'
import type { Store, UserRecord } from './store/types.js'
import { type TwoFactorCore, twoFactorCore } from './two-factor/factor.js'
import { twoFactorFeature } from './two-factor/feature.js'
import type { TwoFactorEvent, TwoFactorMail } from './two-factor/notices.js'
import type { TwoFactorOptions } from './two-factor/options.js'
import { type SecondStep, secondStep } from './two-factor/second-step.js'
import { stepUpCode } from './two-factor/step-up-code.js'

/** The mails the features ask for, beside the core's (`AuthMail` in `notify.ts`). */
export type FeatureMail = TwoFactorMail | SignInMail | PasskeyMail | ApiKeyMail | IdentityMail | OperatorMail

/** The events the features report, beside the core's (`AuthEvent` in `notify.ts`). */
export type FeatureEvent = TwoFactorEvent | PasskeysEvent | ApiKeysEvent | IdentityEvent | OperatorsEvent

/** Every feature, in the order its routes are declared. */
export const features = [
  twoFactorFeature,
  emailSignInFeature,
  passkeysFeature,
  apiKeysFeature,
  oauthFeature,
  adminFeature,
] as const

type Listed = (typeof features)[number]

/** The options of every feature, as `createAuth` takes them. */
export interface FeatureOptions<Name extends string, Scope extends string>
  extends TwoFactorOptions,
    EmailSignInOptions,
    PasskeysOption,
    ApiKeysOption<Scope>,
    ProvidersOption,
    AdminOption<Name> {}

/** The names of the counts the features' sweeps add to the sweep's answer (`PruneCounts`). */
export type FeatureSweepName = Listed extends infer L ? (L extends Feature<never, object, infer S> ? S : never) : never

/** Each feature's sweep, with the name of its count, in the list's order. */
export const featureSweeps = features.flatMap((feature) =>
  Object.entries<SweepBatch>(feature.sweep ?? {}).map(([name, batch]) => ({ name: name as FeatureSweepName, batch })),
)

/** The options of every feature, checked and with their defaults. */
export type ResolvedFeatureOptions = Intersection<ReturnType<Listed['options']>>

/** What every feature's options check is given: their options, and the core options some read (`publicUrl`, `policies`). */
type OptionsInput = Intersection<Parameters<Listed['options']>[0]>

/** Checks every feature's options, in the list's order. */
export const resolveFeatureOptions = (options: OptionsInput): ResolvedFeatureOptions =>
  Object.assign({}, ...features.map((feature) => feature.options(options)))

/** What the features give the routes beside the records: their cores, made once by `createAuth`. */
export interface FeatureCores<U extends UserRecord> {
  /** The second factor: sealed keys, spending codes, login challenges. */
  twoFactor: TwoFactorCore
  /** What every first step of a sign-in asks: is a second step due? (docs/reference/two-factor.md#signing-in) */
  secondStep: SecondStep
  /** The `code` field of `POST /reauth` and `POST /delete-account`, and its check. */
  stepUpCode: StepUpCode
  /** What `POST /reauth` takes besides the password: a passkey when passkeys are on. */
  reauthProofs: readonly ReauthProof[]
  /** WebAuthn ceremonies; `null` when the `passkeys` option is not set. */
  passkeys: PasskeyCore | null
  /** API keys; `null` when the `apiKeys` option is not set. */
  apiKeys: ApiKeyCore<U> | null
  /** What the guard takes in the `Authorization` header besides access tokens: API keys when they are on. */
  credentials: readonly HeaderCredential<U>[]
  /** Social sign-in; `null` when no `providers` are configured. */
  oauth: OAuthCore | null
}

export const featureCores = <U extends UserRecord>({
  store,
  options,
  box,
  notify,
  secure,
  cookiePath,
  now,
  log,
}: {
  store: Store<U>
  options: ResolvedFeatureOptions
  box: SecretBox
  notify: Notifier
  secure: boolean
  cookiePath: string
  now: () => Date
  log: (message: string) => void
}): FeatureCores<U> => {
  const twoFactor = twoFactorCore({ store, box, now })
  const passkeys = options.passkeys && passkeyCore({ store, options: options.passkeys, now })
  const apiKeys = options.apiKeys ? apiKeyCore<U>({ store, now }) : null
  return {
    twoFactor,
    secondStep: secondStep({
      store,
      notify,
      twoFactor,
      methods: [passkeyMethod],
      alternatives: passkeys ? [passkeyAlternative(store, passkeys, notify)] : [],
    }),
    stepUpCode: stepUpCode({ store, twoFactor, notify }),
    reauthProofs: passkeys ? [passkeyProof(passkeys, notify)] : [],
    passkeys,
    apiKeys,
    credentials: apiKeys ? [apiKeyCredential(apiKeys)] : [],
    oauth:
      options.providers.length === 0
        ? null
        : oauthCore({ store, providers: options.providers, box, secure, cookiePath, now, log }),
  }
}
