/** What the auth routes are given by `createAuth`; each route picks the parts it uses. */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import type { AddCredentialCodes } from '../add-credential-code.js'
import type { AfterAnswer } from '../background.js'
import type { RefreshCookie } from '../cookies.js'
import type { DeviceCore } from '../device.js'
import type { GuardEnv, GuardOptions } from '../guard.js'
import type { RouteLimits } from '../limits.js'
import type { Notifier } from '../notify.js'
import type { ResolvedOptions } from '../options.js'
import type { PasskeyCore } from '../passkeys/ceremony.js'
import type { PasswordHasher } from '../password.js'
import type { SessionCore } from '../session.js'
import type { Store, UserRecord } from '../store/types.js'
import type { TwoFactorCore } from '../two-factor/factor.js'

export type AuthApp = OpenAPIHono

export interface RouteDeps<U extends UserRecord> {
  store: Store<U>
  sessions: SessionCore<U>
  /** The password hasher for the client of request `c`: each client holds at most a quarter of the queue. */
  hasher: (c: Context) => PasswordHasher
  /** Verified against when the email is unknown, so both login paths cost one verification; made inside the login. */
  decoy: () => Promise<string>
  limits: RouteLimits
  guard: (auth: true, options?: GuardOptions) => MiddlewareHandler<GuardEnv<U>>
  cookie: RefreshCookie
  /** The device cookie and the account's known devices. */
  devices: DeviceCore
  /** Mails and events, after the answer. */
  notify: Notifier
  afterAnswer: AfterAnswer
  /** The second factor: sealed keys, spending codes, login challenges. */
  twoFactor: TwoFactorCore
  /** The mailed code that proves the mailbox before a credential is added. */
  addCredential: AddCredentialCodes
  /** WebAuthn ceremonies; `null` when the `passkeys` option is not set. */
  passkeys: PasskeyCore | null
  options: ResolvedOptions
}
