/** POST /logout: deletes the caller's session, so its refresh cookie and access tokens stop working at once. */
import { guardedRoute } from '../route.js'
import { bodyGuardResponses } from '../schemas.js'
import type { UserRecord } from '../store/types.js'
import type { AuthApp, RouteDeps } from './deps.js'

export const logout = <U extends UserRecord>(
  app: AuthApp,
  { sessions, guard, notify }: Pick<RouteDeps<U>, 'sessions' | 'guard' | 'notify'>,
) =>
  app.openapi(
    guardedRoute(guard(true), {
      auth: true,
      method: 'post',
      path: '/logout',
      operationId: 'logout',
      tags: ['auth'],
      summary: 'Sign out of this session',
      responses: { 204: { description: 'Session revoked; the refresh cookie is cleared' }, ...bodyGuardResponses },
    }),
    async (c) => {
      await sessions.end(c, c.var.sessionId)
      notify.event(c, { type: 'logout', userId: c.var.user.id, sessionId: c.var.sessionId })
      return c.body(null, 204)
    },
  )
