/**
 * The one error class of the library, its closed set of codes, and their rendering as
 * RFC 9457 problem documents. Anything thrown with a `getResponse()` is rendered by Hono's
 * default error handler too, so an app that installs no handler still answers correctly.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { featureProblems } from './feature-problems.js'

/** Problem codes with their status and title. */
export type ProblemTable = Record<string, readonly [ContentfulStatusCode, string]>

/** The core's codes; each feature adds its own (`feature-problems.ts`). */
const coreTable = {
  malformed_json: [400, 'Malformed JSON'],
  validation_failed: [400, 'Invalid request'],
  invalid_reset_token: [400, 'Invalid or expired reset token'],
  invalid_email_token: [400, 'Invalid or expired token'],
  wrong_password: [400, 'Current password is wrong'],
  wrong_code: [400, 'Wrong two-factor code'],
  invalid_email_code: [400, 'Invalid or expired email code'],
  unauthorized: [401, 'Unauthorized'],
  reauthentication_required: [401, 'Reauthentication required'],
  invalid_credentials: [401, 'Invalid email or password'],
  invalid_refresh: [401, 'Invalid refresh credential'],
  forbidden: [403, 'Forbidden'],
  cross_origin: [403, 'Cross-origin request refused'],
  email_unverified: [403, 'Email address not verified'],
  account_disabled: [403, 'Account disabled'],
  not_found: [404, 'Not found'],
  method_not_allowed: [405, 'Method not allowed'],
  email_taken: [409, 'Email already registered'],
  request_timeout: [408, 'Request timeout'],
  payload_too_large: [413, 'Payload too large'],
  unsupported_media_type: [415, 'Unsupported media type'],
  rate_limited: [429, 'Too many requests'],
  header_fields_too_large: [431, 'Request header fields too large'],
  internal: [500, 'Internal server error'],
  overloaded: [503, 'Service unavailable'],
} as const satisfies ProblemTable

const table = { ...coreTable, ...featureProblems }

/** Every code an {@link AuthError} can carry. */
export type AuthErrorCode = keyof typeof table

/**
 * One entry of a validation failure: `path` is dotted (`title`, `items.0.name`), `code` stable
 * (see `FieldErrorCode`), `message` English for people.
 */
export interface FieldError {
  path: string
  code: string
  message: string
}

export interface ProblemDocument {
  type: string
  title: string
  status: number
  detail: string
  /** The stable code for programs (`email_unverified`, `reauthentication_required`, …); `type` names it as a URI. */
  code?: string
  errors?: FieldError[]
  /** `reauthentication_required`: the session may be at most this many seconds past its last proof. */
  maxAge?: number
}

export interface AuthErrorOptions {
  detail?: string
  errors?: FieldError[]
  maxAge?: number
  headers?: Record<string, string>
}

/**
 * 401 for a session whose last proof is older than `maxAge` seconds: re-authenticate
 * (`POST /auth/reauth`) and retry. The challenge is RFC 9470's.
 */
export const reauthenticationRequired = (maxAge: number) =>
  new AuthError('reauthentication_required', {
    detail: `This needs a sign-in from the last ${maxAge} seconds: confirm who you are (POST /auth/reauth) and try again.`,
    maxAge,
    headers: { 'WWW-Authenticate': `Bearer error="insufficient_user_authentication", max_age=${maxAge}` },
  })

/** 401 for a refresh cookie that is refused (refresh, and logout by the cookie alone). */
export const refreshRefused = (detail: string) =>
  new AuthError('invalid_refresh', { detail, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } })

/** 409: the (canonical) email has an account (signup, change-email, confirm-email). */
export const emailTaken = () => new AuthError('email_taken', { detail: 'An account with this email already exists.' })

/** Stable `type` URI of a problem code. */
export const problemType = (code: AuthErrorCode): string => `urn:latchkey:problem:${code.replaceAll('_', '-')}`

/** Status code of a problem code. */
export const statusOf = (code: AuthErrorCode): ContentfulStatusCode => table[code][0]

/**
 * The library's error. It renders itself as `application/problem+json`.
 *
 * @example
 * throw new AuthError('email_taken', { detail: 'An account with this email already exists.' })
 */
export class AuthError extends Error {
  readonly code: AuthErrorCode
  readonly status: ContentfulStatusCode
  readonly detail: string
  readonly errors: FieldError[] | undefined
  readonly maxAge: number | undefined
  readonly headers: Record<string, string>

  constructor(code: AuthErrorCode, options: AuthErrorOptions = {}) {
    const [status, title] = table[code]
    super(options.detail ?? title)
    this.name = 'AuthError'
    this.code = code
    this.status = status
    this.detail = options.detail ?? title
    this.errors = options.errors
    this.maxAge = options.maxAge
    this.headers = options.headers ?? {}
  }

  toJSON(): ProblemDocument {
    const doc: ProblemDocument = {
      type: problemType(this.code),
      title: table[this.code][1],
      status: this.status,
      detail: this.detail,
      code: this.code,
    }
    if (this.errors) doc.errors = this.errors
    if (this.maxAge !== undefined) doc.maxAge = this.maxAge
    return doc
  }

  getResponse(): Response {
    const headers = new Headers(this.headers)
    headers.set('Content-Type', 'application/problem+json')
    headers.set('X-Content-Type-Options', 'nosniff')
    headers.set('Cache-Control', 'no-store')
    return new Response(JSON.stringify(this.toJSON()), { status: this.status, headers })
  }
}

/** The error of an HTTP status that Hono or a validator raised on its own. */
const codeOfStatus = (status: number): AuthErrorCode => {
  switch (status) {
    case 400:
      return 'malformed_json'
    case 401:
      return 'unauthorized'
    case 403:
      return 'forbidden'
    case 404:
      return 'not_found'
    case 405:
      return 'method_not_allowed'
    case 413:
      return 'payload_too_large'
    case 415:
      return 'unsupported_media_type'
    case 429:
      return 'rate_limited'
    default:
      return 'internal'
  }
}

/** An error and the errors along its `cause` chain, at most four. */
const causes = (err: unknown): Error[] => {
  const chain: Error[] = []
  for (let current = err; chain.length < 4 && current instanceof Error; current = current.cause) chain.push(current)
  return chain
}

/** The `code` a driver put on an error (a PostgreSQL SQLSTATE, a SQLite `SQLITE_…`). */
const codeOf = (err: Error): unknown => (err as { code?: unknown }).code

/**
 * A write that named an account deleted meanwhile: every foreign key of the library's tables
 * and the reference app's points at the user, so a foreign-key violation means the account went
 * away between the request's check and its write (delete-account racing a login or a todo on
 * PostgreSQL). PostgreSQL's `23503`, SQLite's `SQLITE_CONSTRAINT_FOREIGNKEY`, or D1's and
 * `node:sqlite`'s message, anywhere along the `cause` chain.
 */
const isForeignKeyViolation = (err: unknown): boolean =>
  causes(err).some(
    (e) =>
      codeOf(e) === '23503' || codeOf(e) === 'SQLITE_CONSTRAINT_FOREIGNKEY' || /FOREIGN KEY constraint failed/.test(e.message),
  )

/** 401 for a request whose account was deleted while it ran: what it would have been a moment later. */
const accountGone = () =>
  new AuthError('unauthorized', {
    detail: 'The account this request acts for no longer exists.',
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  })

/**
 * Converts anything thrown into an {@link AuthError}: a write that lost a race with the
 * account's deletion is the 401 the request would have had a moment later; other unknown errors
 * become `internal`.
 */
export const toAuthError = (err: unknown): AuthError => {
  if (err instanceof AuthError) return err
  if (isForeignKeyViolation(err)) return accountGone()
  if (err instanceof HTTPException) {
    const code = codeOfStatus(err.status)
    return new AuthError(code, code === 'malformed_json' ? { detail: 'The request body is not valid JSON.' } : {})
  }
  return new AuthError('internal', { detail: 'The server could not complete the request.' })
}

/** Renders an error as a problem document on the context (keeping headers set earlier). */
export const sendProblem = (c: Context, err: AuthError): Response => {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value)
  c.header('Content-Type', 'application/problem+json')
  // An error answer is about one request: no cache along the way may keep it (413 and 415 come
  // before the auth routes' own no-store, and may answer a request that carried a token).
  c.header('Cache-Control', 'no-store')
  return c.body(JSON.stringify(err.toJSON()), err.status)
}

const CODE = /^[A-Za-z0-9_]{1,64}$/

/**
 * An error as it may be logged: the names along its `cause` chain and any code that looks like
 * one (a PostgreSQL SQLSTATE such as `22021`, a SQLite `SQLITE_…` code). Never a message: a
 * database error's message carries its bound parameters (hashes, titles a client chose, line
 * breaks that would forge log lines).
 */
export const errorSummary = (err: unknown): string => {
  const parts = causes(err).map((e) => {
    const code = codeOf(e)
    return typeof code === 'string' && CODE.test(code) ? `${e.name} (code ${code})` : e.name
  })
  return parts.length > 0 ? parts.join(' caused by ') : typeof err
}

/**
 * An `app.onError` handler that answers every error with a problem document and never leaks
 * a stack trace. Unexpected errors go to `log` (default `console.error`) by name and code only
 * ({@link errorSummary}).
 *
 * @example
 * app.onError(problemErrorHandler())
 */
export const problemErrorHandler =
  (log: (message: string) => void = (m) => console.error(m)): ErrorHandler =>
  (err, c) => {
    const authError = toAuthError(err)
    if (authError.code === 'internal') log(`unexpected error: ${errorSummary(err)}`)
    return sendProblem(c, authError)
  }

/** An `app.notFound` handler answering a problem document. */
export const problemNotFound: NotFoundHandler = (c) =>
  sendProblem(c, new AuthError('not_found', { detail: `No route for ${c.req.method} ${c.req.path}.` }))
