/**
 * `@latchkey/auth`: email/password authentication for Hono.
 * Stores live in subpaths: `@latchkey/auth/sqlite`; test helpers in `@latchkey/auth/testing`.
 */
export { type Auth, createAuth } from './create-auth.js'
export {
  AuthError,
  type AuthErrorCode,
  errorSummary,
  type FieldError,
  type ProblemDocument,
  problemErrorHandler,
  problemNotFound,
  problemType,
  toAuthError,
} from './errors.js'
export type { GuardEnv, GuardVariables } from './guard.js'
export { jsonBodyGuard } from './http.js'
export type { Argon2Params, AuthOptions, AuthUser, Policy, ResetMail } from './options.js'
export { ARGON2_FLOOR, secretWeakness } from './options.js'
export { argon2Hasher, type PasswordHasher } from './password.js'
export {
  type Attempt,
  type Limit,
  type LimitCheck,
  type MemoryRateLimitOptions,
  memoryRateLimitStore,
  type RateLimitStore,
} from './rate-limit.js'
export { BEARER_SCHEME, type GuardedRoute, type GuardedRouteConfig } from './route.js'
export {
  canonicalEmail,
  codePointString,
  isStorableText,
  ProblemSchema,
  problemResponse,
  rateLimitedResponse,
  storableString,
  UserSchema,
  validationHook,
} from './schemas.js'
export type {
  ConsumeResetInput,
  NewResetToken,
  NewSession,
  NewUser,
  ReplacePasswordInput,
  SessionRecord,
  Store,
  UserRecord,
  UserWithHash,
} from './store/types.js'
