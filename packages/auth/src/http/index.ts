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
export { codePointString, isStorableText, storableString } from '../fields.js'
export {
  bodyGuardResponses,
  internalErrorResponse,
  overloadedResponse,
  ProblemSchema,
  problemResponse,
  rateLimitedResponse,
} from '../openapi.js'
export { BEARER_SCHEME, type GuardedRoute, type GuardedRouteConfig } from '../route.js'
export { UserSchema } from '../user-json.js'
export { type FieldErrorCode, fieldCode, validationHook } from '../validation.js'
