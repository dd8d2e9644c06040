/**
 * The store kit, exported as the namespace `storeKit` of `@latchkey/auth/testing`: what a store
 * author implements (`Store` and the types of its inputs and records, the email sign-in and
 * passkey facets, the rate-limit store) and the conformance suite that checks it.
 *
 * @example
 * import { storeKit } from '@latchkey/auth/testing'
 * const myStore = (db: Db): storeKit.Store => ({ ... })
 * storeKit.storeConformance('my store', async () => ({ store: myStore(await openDb()) }))
 */

export type { AccountEvent, Revocation } from '../account-events.js'
export type { ApiKeyRecord, ApiKeyStore, NewApiKey } from '../api-keys/store.js'
export type {
  EmailSignInClaim,
  EmailSignInProof,
  EmailSignInStore,
  NewEmailSignIn,
  SettledEmailSignIn,
  SettleEmailSignInInput,
} from '../email-sign-in/store.js'
export type {
  FederatedSignUp,
  IdentityLink,
  IdentityRecord,
  IdentityRemoval,
  IdentityStore,
  NewFederatedUser,
  NewIdentity,
  NewOAuthFlow,
  OAuthFlowRecord,
  UseIdentityInput,
} from '../oauth/store.js'
export type {
  NewPasskey,
  NewPasskeyChallenge,
  PasskeyChallengePurpose,
  PasskeyRecord,
  PasskeyRemoval,
  PasskeyStore,
  UsePasskeyInput,
} from '../passkeys/store.js'
export type { Attempt, Limit, LimitCheck, MemoryRateLimitOptions, RateLimitStore } from '../rate-limit.js'
export type {
  AddCredentialCodeStore,
  ConsumeResetInput,
  CorePruneCounts,
  DeviceStore,
  EmailChangeOutcome,
  EmailTokenKind,
  EmailTokenStore,
  NewAddCredentialCode,
  NewEmailToken,
  NewResetToken,
  NewSession,
  NewUser,
  PruneInput,
  PruneStore,
  RememberDeviceInput,
  ReplacePasswordInput,
  ResetTokenStore,
  SessionInfo,
  SessionRecord,
  SessionRefreshState,
  SessionStore,
  SpendAddCredentialCodeInput,
  SpendEmailTokenInput,
  Store,
  SwapRefreshInput,
  UserRecord,
  UserStore,
  UserWithHash,
} from '../store/types.js'
export type {
  DeleteTwoFactorInput,
  EnableTwoFactorInput,
  NewChallenge,
  TwoFactorRecord,
  TwoFactorStore,
} from '../two-factor/store.js'
export { type StoreFactory, storeConformance } from './store-conformance.js'
