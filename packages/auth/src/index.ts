/**
 * `@latchkey/auth`: email/password authentication for Hono. What an application writes against:
 * `createAuth`, its options and the types a guarded handler sees.
 * - `@latchkey/auth/http`: the problem-document layer for the rest of your app (error handler,
 *   404, body guard, OpenAPI response helpers).
 * - `@latchkey/auth/sqlite`, `/bun-sqlite`, `/node-sqlite`, `/d1`, `/postgres`: the bundled stores.
 * - `@latchkey/auth/testing`: `storeKit` (the store conformance suite and the types a store author
 *   implements, one namespace), a fast hasher, `tableShape`.
 */

export { type AccountEvent, accountEvents, type Revocation } from './account-events.js'
export type { ApiKeysOption } from './api-keys/options.js'
export type { ApiKeyRecord } from './api-keys/store.js'
export { type Auth, createAuth } from './create-auth.js'
export type { GetConnInfo } from './credentials.js'
export type { AuthUser, Policy } from './domain.js'
export { canonicalEmail } from './email.js'
export { AuthError, type AuthErrorCode } from './errors.js'
export type {
  ApiKeyCredential,
  GuardCredential,
  GuardEnv,
  GuardOptions,
  GuardVariables,
  Identity,
  OptionalEnv,
  OptionalVariables,
  ScopedGuardVariables,
  SessionCredential,
} from './guard.js'
export type {
  AddedCredential,
  AuthEvent,
  AuthEventType,
  AuthMail,
  AuthMailKind,
  ResetMail,
} from './notify.js'
export type { ProviderTokens } from './oauth/core.js'
export type { FederatedProfile, OAuth2ProviderConfig, OidcProviderConfig, ProviderConfig } from './oauth/options.js'
export { github, google, microsoft, type ReadyProviderOptions } from './oauth/providers.js'
export type { AuthOptions } from './options.js'
export type { PasskeyOptions } from './passkeys/options.js'
export { type Argon2Params, argon2Hasher, type PasswordHasher } from './password.js'
export { memoryRateLimitStore, type RateLimitStore } from './rate-limit.js'
export { MAX_SIGNING_KEYS, type PublicJwk, type SigningAlgorithm, type SigningKey, signingKeyProblem } from './signing-keys.js'
export type { AuthMethod, Store, UserRecord } from './store/types.js'
export { secretWeakness } from './token-options.js'
export type { RecoveryCodeUse } from './two-factor/notices.js'
