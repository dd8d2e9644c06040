/**
 * `@latchkey/auth/http`: what a Hono app needs so every answer of it is a problem document of the
 * one shape the auth routes answer (RFC 9457, docs/reference/conventions.md#problem-documents):
 * render errors and unknown routes (and log the unexpected ones as the library does), guard the
 * body, fail validation with `errors[]`, and document those answers in OpenAPI.
 *
 * @example
 * const app = new OpenAPIHono({ defaultHook: validationHook })
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
  toAuthError,
} from '../errors.js'
export type { AppLimit, AppLimitKey } from '../limit-counter.js'
export { bodyGuardResponses, internalErrorResponse, problemResponse } from '../openapi.js'
export type { GuardedRoute, GuardedRouteConfig } from '../route.js'
export { type FieldErrorCode, fieldCode, validationHook } from '../validation.js'
