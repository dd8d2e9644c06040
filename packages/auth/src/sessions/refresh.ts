/**
 * POST /refresh: spends the refresh cookie and issues a new one with a new access token. The
 * session core judges the value: a parallel tab's race is refused quietly, reuse (a sign of
 * theft) deletes the whole session.
 */
import type { Context } from 'hono'
import { type PresentedRefresh, parseRefreshValue } from '../cookies.js'
import { crossSiteRefused, isCrossSiteUnsafe } from '../credentials.js'
import { AuthError, refreshRefused } from '../errors.js'
import { limitBy, type Subject } from '../limits.js'
import { jsonContent, problemResponse, settingCookies, unauthorizedResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { TokenSchema } from '../user-json.js'

export const refresh = <U extends UserRecord>({
  route,
  sessions,
  cookie,
  options,
  notify,
}: Pick<RouteDeps<U>, 'route' | 'sessions' | 'cookie' | 'options' | 'notify'>) => {
  /**
   * The cookie, judged before the limit (docs/reference/limits.md#where-limits-run): 401 without
   * one, 403 from another site (after a read-only 401 for a cookie that is no live credential,
   * docs/reference/conventions.md#which-error-wins). Its session (the id it names, or the
   * value's hash for one without) is the limit's key; nothing is looked up for it. The value is
   * parsed here once and handed to the handler (`parsed`: `null` when malformed or repeated).
   */
  const presentedCookie = async ({ c }: { c: Context }): Promise<Subject & { parsed: PresentedRefresh | null }> => {
    const presented = cookie.read(c)
    if (presented === undefined)
      throw new AuthError('invalid_refresh', {
        detail: 'No refresh cookie was sent.',
        headers: { 'WWW-Authenticate': 'Bearer' },
      })
    if (isCrossSiteUnsafe(c, options.trustedOrigins)) {
      // Judged read only: a request from another site spends, revokes and clears nothing.
      if (presented === null || !(await sessions.isCurrent(presented)))
        throw refreshRefused('The refresh cookie is invalid, expired or revoked.')
      throw crossSiteRefused(c, options.trustedOrigins)
    }
    if (presented === null) return { parsed: null }
    const parsed = parseRefreshValue(presented)
    return { parsed, session: parsed.sessionId ?? parsed.hash }
  }

  route.public(
    {
      method: 'post',
      path: '/refresh',
      operationId: 'refresh',
      tags: ['auth'],
      summary: 'Rotate the refresh cookie and get a new access token',
      security: [{ refreshCookie: [] }],
      responses: {
        200: settingCookies(jsonContent(TokenSchema, 'New access token; the refresh cookie is replaced'), 'refreshed'),
        401: unauthorizedResponse('Missing, invalid, expired, revoked or reused refresh cookie'),
        403: problemResponse('Cookie sent from another site'),
      },
    },
    // Per session and per address; defaults a browser refreshing every 15 minutes, in several tabs, never meets.
    { lookup: presentedCookie, limit: { name: 'refresh', keys: [limitBy.refreshIp, limitBy.session] } },
    async (c) => {
      const parsed = c.var.subject?.parsed ?? null
      if (parsed === null) {
        cookie.clear(c)
        throw refreshRefused('The refresh cookie is malformed.')
      }
      const result = await sessions.refresh(c, parsed)
      // Every refusal reads the same, so the answer does not tell a thief that the value was live.
      if (result.status === 'reused')
        notify.event(c, { type: 'refresh.reuse_detected', userId: result.session.userId, sessionId: result.session.id })
      if (result.status !== 'rotated') throw refreshRefused('The refresh cookie is invalid, expired or revoked.')
      return c.json(result.body, 200)
    },
  )
}
