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
  type SessionView,
  type SignInResult,
  type User,
} from './client.js'
export { AuthClientError, type FieldError } from './errors.js'
export { authMiddleware, type FetchMiddleware } from './openapi-fetch.js'
