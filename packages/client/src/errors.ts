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
 * A refused request. `code` is the problem's kind (`invalid-credentials`, `rate-limited`,
 * `validation-failed`, …, the last part of its `type`); `retryAfter` is set on 429 and 503.
 */
export class AuthClientError extends Error {
  override name = 'AuthClientError'
  readonly status: number
  readonly code: string
  readonly detail: string
  readonly errors: FieldError[]
  /** Seconds to wait before trying again (429, 503), from `Retry-After`. */
  readonly retryAfter: number | null

  constructor(status: number, problem: Problem, retryAfter: number | null) {
    const code = problem.type?.split(':').at(-1) ?? `http-${status}`
    super(problem.detail ?? `The server answered ${status}.`)
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
