/**
 * The storage contract of the library. A store keeps facts: it creates users and sessions,
 * swaps refresh values and spends tokens, each single-use step atomic and conditional, and applies
 * the revocation the core hands an account event (`account-events.ts`) in that event's atomic step.
 * It decides no policy: lifetimes, races and reuse are judged by the session core (`session.ts`),
 * what an event revokes by the core's table. Every store runs the same conformance suite
 * (`@latchkey/auth/testing`). Stores hold only SHA-256 hashes of refresh values and tokens.
 * `Store` is the intersection of facets: the core's, declared here in `store/`, and every
 * feature's, each declared in its folder's `store.ts` and listed in `feature-facets.ts`.
 */
import type { FeatureStore } from '../feature-facets.js'
import type { AddCredentialCodeStore } from './add-credential-codes.js'
import type { DeviceStore } from './devices.js'
import type { EmailTokenStore } from './email-tokens.js'
import type { PruneStore } from './prune.js'
import type { ResetTokenStore } from './reset-tokens.js'
import type { SessionStore } from './sessions.js'
import type { UserRecord, UserStore } from './users.js'

export type { AddCredentialCodeStore, NewAddCredentialCode, SpendAddCredentialCodeInput } from './add-credential-codes.js'
export type { DeviceStore, RememberDeviceInput } from './devices.js'
export type { EmailChangeOutcome, EmailTokenKind, EmailTokenStore, NewEmailToken, SpendEmailTokenInput } from './email-tokens.js'
export type { CorePruneCounts, PruneInput, PruneStore } from './prune.js'
export type { ConsumeResetInput, NewResetToken, ResetTokenStore } from './reset-tokens.js'
export type {
  AuthMethod,
  FirstFactor,
  LiveSession,
  NewSession,
  ReauthenticateInput,
  SessionAuthentication,
  SessionInfo,
  SessionRecord,
  SessionRefreshState,
  SessionStore,
  SwapRefreshInput,
} from './sessions.js'
export type { NewUser, ReplacePasswordInput, UserRecord, UserStore, UserWithHash } from './users.js'
export { INITIAL_CREDENTIALS_VERSION } from './users.js'

/**
 * What the library needs from a database: every facet. All methods are async so that network
 * databases fit.
 *
 * @example
 * import { sqliteStore } from '@latchkey/auth/sqlite'
 * const store = sqliteStore(new Database('app.db'))
 */
export interface Store<U extends UserRecord = UserRecord>
  extends UserStore<U>,
    SessionStore<U>,
    ResetTokenStore,
    EmailTokenStore,
    AddCredentialCodeStore,
    DeviceStore,
    PruneStore,
    FeatureStore<U> {}
