import type { MiddlewareHandler } from 'hono'
import type { AddCredentialCodes } from './add-credential-code.js'
import type { AfterAnswer } from './background.js'
import type { RefreshCookie } from './cookies.js'
import type { DeviceCore } from './device.js'
import type { FeatureCores } from './features.js'
import type { GuardEnv, Identity, InternalGuardOptions } from './guard.js'
import type { Notifier } from './notify.js'
import type { ResolvedOptions } from './options.js'
import type { RouteBuilder } from './route-builder.js'
import type { SessionCore } from './session-core.js'
import type { Store, UserRecord } from './store/types.js'

/** What the auth routes are given by `createAuth`, the features' cores (`features.ts`) among it; each route picks the parts it uses. */
export interface RouteDeps<U extends UserRecord> extends FeatureCores<U> {
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
  /** The mailed code that proves the mailbox before a credential is added. */
  addCredential: AddCredentialCodes
  options: ResolvedOptions
}
