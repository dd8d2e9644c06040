/**
 * DELETE /sessions/{id} (docs/reference/endpoints.md#sessions): ends one of the caller's sessions;
 * the current one signs out. Another user's session, an unknown or a malformed id all answer the
 * same 404 naming the id, never 403.
 */
import { z } from '@hono/zod-openapi'
import { AuthError } from '../errors.js'
import { isStorableText } from '../fields.js'
import { problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

const SessionIdParam = z.object({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    // Any segment is answered (404 when it is not one of the caller's sessions, docs/reference/endpoints.md#sessions):
    // the schema refuses nothing the server accepts.
    pattern: '^[^/]+$',
    maxLength: 16384,
    description: 'A session id from GET /sessions. Any other value matches nothing: 404.',
  }),
})

export const revokeSession = <U extends UserRecord>({
  route,
  sessions,
  notify,
}: Pick<RouteDeps<U>, 'route' | 'sessions' | 'notify'>) =>
  route.guarded(
    {
      method: 'delete',
      path: '/sessions/{id}',
      operationId: 'deleteSession',
      tags: ['auth'],
      summary: 'End one of the caller’s sessions; ending the current one signs out',
      request: { params: SessionIdParam },
      responses: {
        204: { description: 'Ended: its refresh cookie and access tokens stop working' },
        404: problemResponse('The caller has no session with this id'),
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user, sessionId } = c.var
      if (id === sessionId) {
        await sessions.endCurrent(c, sessionId)
        notify.event(c, { type: 'logout', userId: user.id, sessionId })
        return c.body(null, 204)
      }
      // Text no store can hold (U+0000, a lone surrogate) is no session id: 404 without asking
      // the store (PostgreSQL would refuse the statement).
      if (!isStorableText(id) || !(await sessions.revoke(user.id, id)))
        throw new AuthError('not_found', { detail: `No session with id ${id}` })
      notify.event(c, { type: 'session.revoked', userId: user.id, sessionId: id })
      return c.body(null, 204)
    },
  )
