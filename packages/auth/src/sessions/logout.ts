/**
 * POST /logout: deletes the caller's session, so its refresh cookie and access tokens stop
 * working at once. The session is named by the access token or, without one, by the refresh
 * cookie alone (docs/reference/endpoints.md#logout: a front end that reloaded has lost its in-memory token).
 */
import type { Context, MiddlewareHandler } from 'hono'
import { crossSiteRefused, isCrossSiteUnsafe, readCredential } from '../credentials.js'
import { refreshRefused } from '../errors.js'
import type { GuardEnv, GuardVariables } from '../guard.js'
import { ACCESS_TOKEN_SECURITY } from '../guard-answers.js'
import { problemResponse, settingCookies, unauthorizedResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

export const logout = <U extends UserRecord>({
  route,
  sessions,
  guard,
  notify,
  cookie,
  options,
}: Pick<RouteDeps<U>, 'route' | 'sessions' | 'guard' | 'notify' | 'cookie' | 'options'>) => {
  const withAccessToken = guard(true)
  // An access credential, when one is present, decides (the credential order); otherwise the
  // refresh cookie names the session.
  const eitherCredential: MiddlewareHandler = async (c, next) => {
    if (readCredential(c) !== null || cookie.read(c) === undefined) return withAccessToken(c as Context<GuardEnv<U>>, next)
    await next()
  }
  route.public(
    {
      method: 'post',
      path: '/logout',
      operationId: 'logout',
      tags: ['auth'],
      summary: 'Sign out of this session (named by the access token, or by the refresh cookie alone)',
      security: [...ACCESS_TOKEN_SECURITY, { refreshCookie: [] }],
      responses: {
        204: settingCookies({ description: 'Session revoked; the refresh cookie is cleared' }, 'cleared'),
        401: unauthorizedResponse('No valid access token, and no current refresh cookie'),
        403: problemResponse('The refresh cookie was sent from another site'),
      },
    },
    { credential: eitherCredential },
    async (c) => {
      const { user: signedIn, sessionId } = c.var as Partial<GuardVariables<U>>
      if (signedIn && sessionId) {
        await sessions.endCurrent(c, sessionId)
        notify.event(c, { type: 'logout', userId: signedIn.id, sessionId })
        return c.body(null, 204)
      }
      const presented = cookie.read(c)
      if (!presented) throw refreshRefused('The refresh cookie is malformed.')
      // An invalid cookie is 401 before the cross-site 403 (docs/reference/conventions.md#which-error-wins), judged read only.
      if (isCrossSiteUnsafe(c, options.trustedOrigins)) {
        if (!(await sessions.isCurrent(presented))) throw refreshRefused('The refresh cookie is invalid, spent or revoked.')
        throw crossSiteRefused(c, options.trustedOrigins)
      }
      const ended = await sessions.endByRefresh(c, presented)
      if (!ended) throw refreshRefused('The refresh cookie is invalid, spent or revoked.')
      notify.event(c, { type: 'logout', userId: ended.userId, sessionId: ended.id })
      return c.body(null, 204)
    },
  )
}
