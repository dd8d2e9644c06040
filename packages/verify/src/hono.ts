/**
 * `@latchkey/verify/hono`: a Hono middleware that lets through requests with a valid Latchkey
 * access token in `Authorization: Bearer` and hands its claims to the handler as
 * `c.get('claims')`. Anything else gets a 401 problem document (RFC 9457) with
 * `WWW-Authenticate: Bearer` (RFC 6750), or 503 while the key set cannot be fetched.
 */
import type { MiddlewareHandler } from 'hono'
import { VerifyError } from './errors.js'
import type { AccessClaims, Verifier } from './verifier.js'

/** What a handler after {@link requireAccessToken} sees: `c.get('claims')`, typed and non-null. */
export type VerifiedEnv = { Variables: { claims: AccessClaims } }

const problem = (err: VerifyError, sent: boolean) => {
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' }
  if (err.status === 503) headers['Retry-After'] = '5'
  // RFC 6750 §3.1: no error code when no credential was sent.
  else headers['WWW-Authenticate'] = sent ? 'Bearer error="invalid_token"' : 'Bearer'
  const body = {
    type: `urn:latchkey:problem:${err.code.replaceAll('_', '-')}`,
    title: err.status === 503 ? 'Service unavailable' : 'Unauthorized',
    status: err.status,
    detail: err.message,
    code: err.code,
  }
  return new Response(JSON.stringify(body), { status: err.status, headers })
}

/**
 * Middleware for the routes that need a signed-in Latchkey user.
 *
 * @example
 * import { Hono } from 'hono'
 * import { createVerifier } from '@latchkey/verify'
 * import { requireAccessToken } from '@latchkey/verify/hono'
 *
 * const verifier = createVerifier({ jwksUrl: 'https://auth.example.com/.well-known/jwks.json', issuer: 'latchkey', audience: 'latchkey' })
 * const app = new Hono()
 * app.get('/reports', requireAccessToken(verifier), (c) => c.json({ for: c.get('claims').sub }))
 */
export const requireAccessToken = (verifier: Verifier): MiddlewareHandler<VerifiedEnv> =>
  async function requireAccessToken(c, next) {
    const header = c.req.header('Authorization')
    if (header === undefined)
      return problem(new VerifyError('missing_token', 'send the access token as Authorization: Bearer <token>'), false)
    const token = /^Bearer +([^ ]+) *$/i.exec(header)?.[1]
    if (token === undefined) return problem(new VerifyError('malformed', 'the Authorization header is not Bearer <token>'), true)
    try {
      c.set('claims', await verifier.verify(token))
    } catch (err) {
      if (err instanceof VerifyError) return problem(err, true)
      throw err
    }
    await next()
  }
