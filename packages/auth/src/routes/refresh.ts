/**
 * POST /refresh: spends the refresh cookie and issues a new one with a new access token.
 * A value rotated away within the grace window is refused quietly (parallel tabs); later it
 * is reuse, a sign of theft, and the store deletes the whole session.
 */
import { createRoute } from '@hono/zod-openapi'
import { parseRefreshValue, refreshValue } from '../cookies.js'
import { crossSiteRefused, isCrossSiteUnsafe } from '../credentials.js'
import { AuthError } from '../errors.js'
import { type AuthApp, accessTokenBody, ipRule, type Kit, refreshMaxAge } from '../kit.js'
import { opaqueToken, tokenHash } from '../opaque-token.js'
import { jsonContent, problemResponse, rateLimitedResponse, TokenSchema } from '../schemas.js'

const refused = (detail: string) =>
  new AuthError('invalid_refresh', { detail, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } })

export const refresh = (app: AuthApp, kit: Kit) => {
  // Per session (the id the cookie names, or the value's hash for one without) and per address;
  // defaults a browser refreshing every 15 minutes, in several tabs, never meets.
  const limit = kit.limit('refresh', [
    ipRule(kit, kit.options.refreshIpLimit),
    {
      kind: 'session',
      limit: kit.options.refreshSessionLimit,
      valueOf: (c) => {
        const presented = kit.cookie.read(c)
        if (!presented) return null
        const { sessionId, hash } = parseRefreshValue(presented)
        return sessionId ?? hash
      },
    },
  ])
  return app.openapi(
    createRoute({
      method: 'post',
      path: '/refresh',
      tags: ['auth'],
      summary: 'Rotate the refresh cookie and get a new access token',
      security: [{ refreshCookie: [] }],
      responses: {
        200: jsonContent(TokenSchema, 'New access token; the refresh cookie is replaced'),
        401: problemResponse('Missing, invalid, expired, revoked or reused refresh cookie'),
        403: problemResponse('Cookie sent from another site'),
        429: rateLimitedResponse,
      },
    }),
    async (c) => {
      const presented = kit.cookie.read(c)
      if (presented === undefined)
        throw new AuthError('invalid_refresh', {
          detail: 'No refresh cookie was sent.',
          headers: { 'WWW-Authenticate': 'Bearer' },
        })
      if (isCrossSiteUnsafe(c, kit.options.publicOrigin)) throw crossSiteRefused(c, kit.options.publicOrigin)
      // After 401 (no cookie) and 403 (another site), before anything is looked up (CONTRACT §2 order).
      await limit(c, async () => {})
      if (presented === null) {
        kit.cookie.clear(c)
        throw refused('The refresh cookie is malformed.')
      }

      const now = kit.options.now()
      const next = opaqueToken()
      const result = await kit.store.rotateRefresh({
        ...parseRefreshValue(presented),
        nextHash: tokenHash(next),
        now,
        graceMs: kit.options.refreshGraceMs,
        idleMs: kit.options.sessionIdleMs,
        absoluteMs: kit.options.sessionAbsoluteMs,
      })
      // Every refusal reads the same, so the answer does not tell a thief that the value was live.
      // A race loser leaves the cookie alone: the winner's Set-Cookie may land first.
      if (result.status !== 'rotated') {
        if (result.status !== 'race') kit.cookie.clear(c)
        throw refused('The refresh cookie is invalid, expired or revoked.')
      }
      kit.cookie.set(c, refreshValue(result.session.id, next), refreshMaxAge(kit.options, result.session, now))
      return c.json(await accessTokenBody(kit, result.user.id, result.session.id), 200)
    },
  )
}
