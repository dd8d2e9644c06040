/**
 * `@latchkey/client`: the browser and Node client of @latchkey/auth.
 *
 * @example
 * import { createAuthClient } from '@latchkey/client'
 * const auth = createAuthClient({ baseUrl: 'https://api.example.com' })
 */
export {
  type AuthClient,
  type AuthClientOptions,
  type AuthState,
  createAuthClient,
  type EmailSignInProof,
  type EmailSignInStarted,
  type ReauthenticationPrompt,
  type ReauthProof,
  type SessionView,
  type SignInResult,
  type TwoFactorChallenge,
  type TwoFactorStatus,
  type User,
} from './client.js'
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
export { authMiddleware, type FetchMiddleware } from './openapi-fetch.js'
export type { Passkey, PasskeyProof, PasskeyRequestOptions } from './passkeys.js'
