/** What the auth routes are given by `createAuth`; each route picks the parts it uses. */

import type { MiddlewareHandler } from 'hono'
import type { AddCredentialCodes } from './add-credential-code.js'
import type { ApiKeyCore } from './api-keys/core.js'
import type { AfterAnswer } from './background.js'
import type { RefreshCookie } from './cookies.js'
import type { DeviceCore } from './device.js'
import type { GuardEnv, Identity, InternalGuardOptions } from './guard.js'
import type { Notifier } from './notify.js'
import type { OAuthCore } from './oauth/core.js'
import type { ResolvedOptions } from './options.js'
import type { PasskeyCore } from './passkeys/ceremony.js'
import type { RouteBuilder } from './route-builder.js'
import type { SessionCore } from './session-core.js'
import type { Store, UserRecord } from './store/types.js'
import type { TwoFactorCore } from './two-factor/factor.js'
import type { SecondStep } from './two-factor/second-step.js'

export interface RouteDeps<U extends UserRecord> {
  /** Declares a route: its guard, peek, lookup, limit keys and hashing; documents what it installs. */
  route: RouteBuilder<U>
  store: Store<U>
  /** The user's guard, for a route that chooses its credential itself (logout); the builder guards the others. */
  guard: (auth: true | string, options?: InternalGuardOptions) => MiddlewareHandler<GuardEnv<U>>
  sessions: SessionCore<U>
  /** The user and session a presented access token names, or `null` (the guard's check, refusing nothing). */
  identify: (token: string) => Promise<Identity<U> | null>
  /** Verified against when the email is unknown, so both login paths cost one verification; made inside the login. */
  decoy: () => Promise<string>
  cookie: RefreshCookie
  /** The device cookie and the account's known devices. */
  devices: DeviceCore
  /** Mails and events, after the answer. */
  notify: Notifier
  afterAnswer: AfterAnswer
  /** The second factor: sealed keys, spending codes, login challenges. */
  twoFactor: TwoFactorCore
  /** What every first step of a sign-in asks: is a second step due? (docs/reference/two-factor.md#signing-in) */
  secondStep: SecondStep
  /** The mailed code that proves the mailbox before a credential is added. */
  addCredential: AddCredentialCodes
  /** WebAuthn ceremonies; `null` when the `passkeys` option is not set. */
  passkeys: PasskeyCore | null
  /** API keys; `null` when the `apiKeys` option is not set. */
  apiKeys: ApiKeyCore<U> | null
  /** Social sign-in; `null` when no `providers` are configured. */
  oauth: OAuthCore | null
  options: ResolvedOptions
}
