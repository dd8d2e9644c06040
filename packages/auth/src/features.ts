/**
 * The features, listed once (CONTRIBUTING.md, "Adding a feature"): each folder's record, and what
 * the core composes from them: the options `createAuth` takes and resolves, the store facets each
 * database family implements, the cores the routes are given, and the routes themselves, in this
 * order. Outside this file the core names no feature; a feature reaches the core through its
 * record. The types are listed beside the records because some are generic in the user (`U`), which
 * a record's value cannot carry; `ListedFacets` holds the two lists together.
 */

import { adminFeature } from './admin/feature.js'
import type { AdminOption } from './admin/options.js'
import type { AdminStore } from './admin/store.js'
import { type ApiKeyCore, apiKeyCore } from './api-keys/core.js'
import { apiKeysFeature } from './api-keys/feature.js'
import type { ApiKeysOption } from './api-keys/options.js'
import type { ApiKeyStore } from './api-keys/store.js'
import { emailSignInFeature } from './email-sign-in/feature.js'
import type { EmailSignInOptions } from './email-sign-in/options.js'
import type { EmailSignInStore } from './email-sign-in/store.js'
import type { Notifier } from './notify.js'
import { type OAuthCore, oauthCore } from './oauth/core.js'

export type { ProviderTokens } from './oauth/core.js'

import { oauthFeature } from './oauth/feature.js'
import type { ProvidersOption } from './oauth/options.js'
import type { IdentityStore } from './oauth/store.js'
import { type PasskeyCore, passkeyCore } from './passkeys/ceremony.js'
import { passkeysFeature } from './passkeys/feature.js'
import type { PasskeysOption } from './passkeys/options.js'
import { passkeyProof } from './passkeys/reauth.js'
import { passkeyAlternative, passkeyMethod } from './passkeys/second-step.js'
import type { PasskeyStore } from './passkeys/store.js'
import type { PgDb } from './postgres/db.js'
import type { ReauthProof } from './reauth-proof.js'
import type { SecretBox } from './secret-box.js'
import type { SqliteDb, SqliteSteps } from './sqlite/db.js'
import type { Store, UserRecord } from './store/types.js'
import { type TwoFactorCore, twoFactorCore } from './two-factor/factor.js'
import { twoFactorFeature } from './two-factor/feature.js'
import type { TwoFactorOptions } from './two-factor/options.js'
import { type SecondStep, secondStep } from './two-factor/second-step.js'
import type { TwoFactorStore } from './two-factor/store.js'

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
type Intersection<T> = (T extends unknown ? (part: T) => void : never) extends (part: infer I) => void ? I : never

/** The options of every feature, as `createAuth` takes them. */
export interface FeatureOptions<Name extends string, Scope extends string>
  extends TwoFactorOptions,
    EmailSignInOptions,
    PasskeysOption,
    ApiKeysOption<Scope>,
    ProvidersOption,
    AdminOption<Name> {}

/** The options of every feature, checked and with their defaults. */
export type ResolvedFeatureOptions = Intersection<ReturnType<Listed['options']>>

/** What every feature's options check is given: their options, and the core options some read (`publicUrl`, `policies`). */
type OptionsInput = Intersection<Parameters<Listed['options']>[0]>

/** Checks every feature's options, in the list's order. */
export const resolveFeatureOptions = (options: OptionsInput): ResolvedFeatureOptions =>
  Object.assign({}, ...features.map((feature) => feature.options(options)))

/** Every feature's store facet: with the core's, the `Store` a database implements. */
export interface FeatureStore<U extends UserRecord = UserRecord>
  extends TwoFactorStore,
    EmailSignInStore,
    PasskeyStore,
    ApiKeyStore<U>,
    IdentityStore,
    AdminStore<U> {}

/** What the records' facets add up to. Returned as {@link FeatureStore}, it cannot lack a facet that type names. */
type ListedFacets = Intersection<ReturnType<Listed['store']['sqlite'] | Listed['store']['postgres']>>

/** Every feature's facet on a database of the SQLite family. */
export const sqliteFeatureFacets = (db: SqliteDb, steps: SqliteSteps): FeatureStore =>
  Object.assign({}, ...features.map((feature) => feature.store.sqlite(db, steps))) as ListedFacets

/** Every feature's facet on PostgreSQL. */
export const postgresFeatureFacets = (db: PgDb): FeatureStore =>
  Object.assign({}, ...features.map((feature) => feature.store.postgres(db))) as ListedFacets

/** What the features give the routes beside the records: their cores, made once by `createAuth`. */
export interface FeatureCores<U extends UserRecord> {
  /** The second factor: sealed keys, spending codes, login challenges. */
  twoFactor: TwoFactorCore
  /** What every first step of a sign-in asks: is a second step due? (docs/reference/two-factor.md#signing-in) */
  secondStep: SecondStep
  /** What `POST /reauth` takes besides the password: a passkey when passkeys are on. */
  reauthProofs: readonly ReauthProof[]
  /** WebAuthn ceremonies; `null` when the `passkeys` option is not set. */
  passkeys: PasskeyCore | null
  /** API keys; `null` when the `apiKeys` option is not set. */
  apiKeys: ApiKeyCore<U> | null
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
  return {
    twoFactor,
    secondStep: secondStep({
      store,
      notify,
      twoFactor,
      methods: [passkeyMethod],
      alternatives: passkeys ? [passkeyAlternative(store, passkeys, notify)] : [],
    }),
    reauthProofs: passkeys ? [passkeyProof(passkeys, notify)] : [],
    passkeys,
    apiKeys: options.apiKeys ? apiKeyCore<U>({ store, now }) : null,
    oauth:
      options.providers.length === 0
        ? null
        : oauthCore({ store, providers: options.providers, box, secure, cookiePath, now, log }),
  }
}
