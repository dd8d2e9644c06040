/**
 * POST /refresh: spends the refresh cookie and issues a new one with a new access token. The
 * session core judges the value: a parallel tab's race is refused quietly, reuse (a sign of
 * theft) deletes the whole session.
 */
import { createRoute } from '@hono/zod-openapi'
import { parseRefreshValue } from '../cookies.js'
import { crossSiteRefused, isCrossSiteUnsafe } from '../credentials.js'
import { AuthError } from '../errors.js'
import {
  bodyGuardResponses,
  internalErrorResponse,
  jsonContent,
  problemResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from '../openapi.js'
import type { UserRecord } from '../store/types.js'
import { TokenSchema } from '../user-json.js'
import type { AuthApp, RouteDeps } from './deps.js'

/** The 401 of a refused refresh cookie (refresh, and logout by the cookie alone). */
export const refreshRefused = (detail: string) =>
  new AuthError('invalid_refresh', { detail, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } })

export const refresh = <U extends UserRecord>(
  app: AuthApp,
  { sessions, cookie, limits, options, notify }: Pick<RouteDeps<U>, 'sessions' | 'cookie' | 'limits' | 'options' | 'notify'>,
) => {
  // Per session (the id the cookie names, or the value's hash for one without) and per address;
  // defaults a browser refreshing every 15 minutes, in several tabs, never meets.
  const limit = limits.refresh((c) => {
    const presented = cookie.read(c)
    if (!presented) return null
    const { sessionId, hash } = parseRefreshValue(presented)
    return sessionId ?? hash
  })
  return app.openapi(
    createRoute({
      method: 'post',
      path: '/refresh',
      operationId: 'refresh',
      tags: ['auth'],
      summary: 'Rotate the refresh cookie and get a new access token',
      security: [{ refreshCookie: [] }],
      responses: {
        200: jsonContent(TokenSchema, 'New access token; the refresh cookie is replaced'),
        401: unauthorizedResponse('Missing, invalid, expired, revoked or reused refresh cookie'),
        403: problemResponse('Cookie sent from another site'),
        ...bodyGuardResponses,
        429: rateLimitedResponse,
        500: internalErrorResponse,
      },
    }),
    async (c) => {
      const presented = cookie.read(c)
      if (presented === undefined)
        throw new AuthError('invalid_refresh', {
          detail: 'No refresh cookie was sent.',
          headers: { 'WWW-Authenticate': 'Bearer' },
        })
      if (isCrossSiteUnsafe(c, options.trustedOrigins)) {
        // docs/reference/conventions.md#which-error-wins: a cookie that is no live credential is 401 before the 403. Judged
        // read only: a request from another site spends, revokes and clears nothing.
        if (presented === null || !(await sessions.isCurrent(presented)))
          throw refreshRefused('The refresh cookie is invalid, expired or revoked.')
        throw crossSiteRefused(c, options.trustedOrigins)
      }
      // After 401 (no cookie) and 403 (another site), before anything is looked up (docs/reference/conventions.md#which-error-wins).
      await limit(c, async () => {})
      if (presented === null) {
        cookie.clear(c)
        throw refreshRefused('The refresh cookie is malformed.')
      }
      const result = await sessions.refresh(c, presented)
      // Every refusal reads the same, so the answer does not tell a thief that the value was live.
      if (result.status === 'reused')
        notify.event(c, { type: 'refresh.reuse_detected', userId: result.session.userId, sessionId: result.session.id })
      if (result.status !== 'rotated') throw refreshRefused('The refresh cookie is invalid, expired or revoked.')
      return c.json(result.body, 200)
    },
  )
}
