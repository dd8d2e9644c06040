/**
 * `@latchkey/auth/testing`: for store authors and tests. The store conformance suite every
 * store runs, a fast hasher, and the types a store implements. The suite requires `vitest`
 * (a peer dependency of this subpath only); the types cost nothing at run time.
 */

export { keyIdOf } from '../access-token.js'
export type { AccountEvent, Revocation } from '../account-events.js'
export type {
  EmailSignInClaim,
  EmailSignInProof,
  EmailSignInStore,
  NewEmailSignIn,
  SettledEmailSignIn,
  SettleEmailSignInInput,
} from '../email-sign-in/store.js'
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
  DeleteTwoFactorInput,
  DeviceStore,
  EmailChangeOutcome,
  EmailTokenKind,
  EmailTokenStore,
  EnableTwoFactorInput,
  NewAddCredentialCode,
  NewChallenge,
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
  TwoFactorRecord,
  TwoFactorStore,
  UserRecord,
  UserStore,
  UserWithHash,
} from '../store/types.js'
export { fastHasher } from './fast-hasher.js'
export { type StoreFactory, storeConformance } from './store-conformance.js'
export { type TableShape, tableShape } from './table-shape.js'
