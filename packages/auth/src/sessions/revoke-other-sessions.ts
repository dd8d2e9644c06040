/** DELETE /sessions (docs/reference/endpoints.md#sessions): sign out everywhere else. */
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

export const revokeOtherSessions = <U extends UserRecord>({
  route,
  sessions,
  notify,
}: Pick<RouteDeps<U>, 'route' | 'sessions' | 'notify'>) =>
  route.guarded(
    {
      method: 'delete',
      path: '/sessions',
      operationId: 'deleteOtherSessions',
      tags: ['auth'],
      summary: 'Sign out everywhere else: end every session of the caller except this one',
      responses: { 204: { description: 'Every other session ended' } },
    },
    {},
    async (c) => {
      const { user, sessionId } = c.var
      // One statement deletes them and names them, so each gets its event, and only those.
      for (const id of await sessions.revokeOthers(user.id, sessionId))
        notify.event(c, { type: 'session.revoked', userId: user.id, sessionId: id })
      return c.body(null, 204)
    },
  )
