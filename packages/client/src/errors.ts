/** The problem documents of @latchkey/auth (RFC 9457), as errors a client can act on. */

/** One field error of a 400: a stable `code` for programs, an English `message` for people. */
export interface FieldError {
  path: string
  code: string
  message: string
}

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

  constructor(
    status: number,
    problem: Partial<{ type: string; detail: string; errors: FieldError[] }>,
    retryAfter: number | null,
  ) {
    const code = problem.type?.split(':').at(-1) ?? `http-${status}`
    super(problem.detail ?? `The server answered ${status}.`)
    this.status = status
    this.code = code
    this.detail = problem.detail ?? ''
    this.errors = Array.isArray(problem.errors) ? problem.errors : []
    this.retryAfter = retryAfter
  }
}

/** The error of a non-2xx answer, read from its problem document. */
export const errorFrom = async (response: Response): Promise<AuthClientError> => {
  const problem = (await response.json().catch(() => ({}))) as Partial<{ type: string; detail: string; errors: FieldError[] }>
  const header = response.headers.get('retry-after')
  const retryAfter = header !== null && /^\d+$/.test(header) ? Number(header) : null
  return new AuthClientError(response.status, problem ?? {}, retryAfter)
}
