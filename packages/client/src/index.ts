/**
 * `@latchkey/client`: the browser and Node client of @latchkey/auth.
 *
 * @example
 * import { createAuthClient } from '@latchkey/client'
 * const auth = createAuthClient({ baseUrl: 'https://api.example.com' })
 */
export { type AuthClient, createAuthClient } from './client.js'
export {
  CROSS_TAB_CHANNEL,
  CROSS_TAB_LOCK,
  type CrossTabMessage,
  type CrossTabOptions,
  type LockManagerLike,
} from './cross-tab.js'
export {
  AuthClientError,
  type AuthClientErrorCode,
  type FieldError,
  NETWORK_ERROR,
  ReauthenticationRequiredError,
} from './errors.js'
export type { LinkedIdentity, OAuthLanding, OAuthProvider } from './oauth.js'
export { authMiddleware, type FetchMiddleware } from './openapi-fetch.js'
export type { AuthClientOptions } from './options.js'
export type { Passkey, PasskeyProof, PasskeyRequestOptions } from './passkeys.js'
export type {
  ApiKey,
  AuthState,
  CreatedApiKey,
  EmailSignInProof,
  EmailSignInStarted,
  ReauthenticationPrompt,
  ReauthProof,
  SessionView,
  SignInResult,
  TwoFactorChallenge,
  TwoFactorStatus,
  User,
} from './types.js'
