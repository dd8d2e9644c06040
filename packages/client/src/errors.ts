/** The problem documents of @latchkey/auth (RFC 9457), as errors a client can act on. */

/** One field error of a 400: a stable `code` for programs, an English `message` for people. */
export interface FieldError {
  path: string
  code: string
  message: string
}

/** The problem fields the client reads. */
type Problem = Partial<{ type: string; detail: string; errors: FieldError[]; maxAge: number }>

/**
 * The code of a request that got no answer at all (status 0): `fetch` itself failed. From a page,
 * most often the browser refused a cross-origin answer (CORS: the API does not list the page's
 * origin); otherwise the server is down or the URL is wrong.
 */
export const NETWORK_ERROR = 'network-error'

/**
 * The codes of a refused request: {@link NETWORK_ERROR}, or the problem's kind
 * (`invalid-credentials`, `rate-limited`, `validation-failed`, …, the last part of its `type`).
 */
export type AuthClientErrorCode = typeof NETWORK_ERROR | (string & {})

/**
 * A refused request. `code` is the problem's kind (`invalid-credentials`, `rate-limited`,
 * `validation-failed`, …, the last part of its `type`), or `network-error` (status 0) when no
 * answer came; `retryAfter` is set on 429 and 503.
 */
export class AuthClientError extends Error {
  override name = 'AuthClientError'
  /** The HTTP status; 0 when no answer came (`network-error`). */
  readonly status: number
  readonly code: AuthClientErrorCode
  readonly detail: string
  readonly errors: FieldError[]
  /** Seconds to wait before trying again (429, 503), from `Retry-After`. */
  readonly retryAfter: number | null

  constructor(status: number, problem: Problem, retryAfter: number | null, options?: { cause?: unknown }) {
    const code = problem.type?.split(':').at(-1) ?? `http-${status}`
    super(problem.detail ?? `The server answered ${status}.`, options)
    this.status = status
    this.code = code
    this.detail = problem.detail ?? ''
    this.errors = Array.isArray(problem.errors) ? problem.errors : []
    this.retryAfter = retryAfter
  }
}

/**
 * 401 `reauthentication-required`: the operation needs a session that proved its holder at most
 * `maxAge` seconds ago. Confirm who the user is with `auth.reauth({ password, code })` and try
 * again (or let the client do it: `onReauthenticationRequired`).
 */
export class ReauthenticationRequiredError extends AuthClientError {
  override name = 'ReauthenticationRequiredError'
  /** Seconds, from the problem's `maxAge` or the `max_age` of the RFC 9470 challenge. */
  readonly maxAge: number

  constructor(problem: Problem, maxAge: number) {
    super(401, problem, null)
    this.maxAge = maxAge
  }
}

/** Whether a response is the RFC 9470 step-up challenge (`error="insufficient_user_authentication"`). */
export const isStepUpChallenge = (response: Response): boolean =>
  response.status === 401 && /insufficient_user_authentication/.test(response.headers.get('www-authenticate') ?? '')

/**
 * The error of a request `fetch` could not make (it threw a `TypeError`: "Failed to fetch" in
 * Chromium, "NetworkError when attempting to fetch resource." in Firefox, "Load failed" in Safari,
 * "fetch failed" in Node), saying what most likely happened. The original is its `cause`.
 */
export const networkError = (url: string, cause: unknown): AuthClientError => {
  const { origin } = new URL(url)
  const page = (globalThis as { location?: { origin?: string } }).location?.origin
  const crossOrigin = page !== undefined && page !== 'null' && page !== origin
  const detail = crossOrigin
    ? `No answer from ${origin}. This page (${page}) is on another origin: most likely the browser refused the answer (CORS; the console says so). The API must list ${page} in its trustedOrigins (the reference app: TRUSTED_ORIGINS) and answer CORS with credentials; see "A front end on another origin" in the @latchkey/auth README. Otherwise the server is down or unreachable.`
    : `No answer from ${origin}: the server is down, unreachable, or the URL is wrong.`
  return new AuthClientError(0, { type: NETWORK_ERROR, detail }, null, { cause })
}

/** The error of a non-2xx answer, read from its problem document. */
export const errorFrom = async (response: Response): Promise<AuthClientError> => {
  const problem = ((await response.json().catch(() => ({}))) ?? {}) as Problem
  if (isStepUpChallenge(response) || problem.type?.endsWith(':reauthentication-required')) {
    const challenged = /max_age=(\d+)/.exec(response.headers.get('www-authenticate') ?? '')?.[1]
    const maxAge = typeof problem.maxAge === 'number' ? problem.maxAge : Number(challenged ?? 0)
    return new ReauthenticationRequiredError(problem, maxAge)
  }
  const header = response.headers.get('retry-after')
  const retryAfter = header !== null && /^\d+$/.test(header) ? Number(header) : null
  return new AuthClientError(response.status, problem, retryAfter)
}
