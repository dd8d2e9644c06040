/**
 * `@latchkey/auth/http`: the problem-document layer the auth routes use, for the rest of your
 * app, so every answer of it has one shape (RFC 9457, docs/reference/conventions.md#problem-documents).
 *
 * @example
 * app.use('*', jsonBodyGuard())
 * app.onError(problemErrorHandler())
 * app.notFound(problemNotFound)
 */
export { jsonBodyGuard } from '../body.js'
export {
  errorSummary,
  type FieldError,
  type ProblemDocument,
  problemErrorHandler,
  problemNotFound,
  problemType,
  toAuthError,
} from '../errors.js'
export { BEARER_SCHEME, type GuardedRoute, type GuardedRouteConfig } from '../route.js'
export {
  bodyGuardResponses,
  codePointString,
  internalErrorResponse,
  isStorableText,
  overloadedResponse,
  ProblemSchema,
  problemResponse,
  rateLimitedResponse,
  storableString,
  UserSchema,
} from '../schemas.js'
export { type FieldErrorCode, fieldCode, validationHook } from '../validation.js'
