/**
 * The caller's sessions (docs/reference/endpoints.md#sessions): list them, end one, end every other. Another user's
 * session, an unknown or a malformed id all answer the same 404 naming the id, never 403.
 */
import { z } from '@hono/zod-openapi'
import { AuthError } from '../errors.js'
import { isStorableText } from '../fields.js'
import { bodyGuardResponses, jsonContent, problemResponse } from '../openapi.js'
import { guardedRoute } from '../route.js'
import type { UserRecord } from '../store/types.js'
import type { AuthApp, RouteDeps } from './deps.js'

const when = (description: string) => z.string().max(30).openapi({ format: 'date-time', description })

export const SessionSchema = z
  .object({
    id: z.string().max(36),
    createdAt: when('Signed in at'),
    lastUsedAt: when('The last sign-in or refresh'),
    expiresAt: when('The earlier of the idle and absolute deadlines'),
    userAgent: z.string().max(256).nullable().openapi({ description: 'The User-Agent at sign-in, first 256 characters' }),
    ip: z.string().max(64).nullable().openapi({ description: 'The client address at sign-in' }),
    current: z.boolean().openapi({ description: 'The session of this request' }),
  })
  .openapi('Session')

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

export const sessionRoutes = <U extends UserRecord>(
  app: AuthApp,
  { store, sessions, guard, notify }: Pick<RouteDeps<U>, 'store' | 'sessions' | 'guard' | 'notify'>,
) => {
  app.openapi(
    guardedRoute(guard(true), {
      auth: true,
      method: 'get',
      path: '/sessions',
      operationId: 'listSessions',
      tags: ['auth'],
      summary: "The caller's live sessions, most recently used first",
      responses: { 200: jsonContent(z.array(SessionSchema).max(10_000), 'Live sessions only') },
    }),
    async (c) => c.json(await sessions.list(c.var.user.id, c.var.sessionId), 200),
  )

  app.openapi(
    guardedRoute(guard(true), {
      auth: true,
      method: 'delete',
      path: '/sessions/{id}',
      operationId: 'deleteSession',
      tags: ['auth'],
      summary: 'End one of the caller’s sessions; ending the current one signs out',
      request: { params: SessionIdParam },
      responses: {
        204: { description: 'Ended: its refresh cookie and access tokens stop working' },
        404: problemResponse('The caller has no session with this id'),
        ...bodyGuardResponses,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const { user, sessionId } = c.var
      if (id === sessionId) {
        await sessions.end(c, sessionId)
        notify.event(c, { type: 'logout', userId: user.id, sessionId })
        return c.body(null, 204)
      }
      // Text no store can hold (U+0000, a lone surrogate) is no session id: 404 without asking
      // the store (PostgreSQL would refuse the statement).
      if (!isStorableText(id) || !(await store.deleteUserSession(user.id, id)))
        throw new AuthError('not_found', { detail: `No session with id ${id}` })
      notify.event(c, { type: 'session.revoked', userId: user.id, sessionId: id })
      return c.body(null, 204)
    },
  )

  return app.openapi(
    guardedRoute(guard(true), {
      auth: true,
      method: 'delete',
      path: '/sessions',
      operationId: 'deleteOtherSessions',
      tags: ['auth'],
      summary: 'Sign out everywhere else: end every session of the caller except this one',
      responses: { 204: { description: 'Every other session ended' }, ...bodyGuardResponses },
    }),
    async (c) => {
      const { user, sessionId } = c.var
      // One statement deletes them and names them, so each gets its event, and only those.
      for (const id of await store.deleteOtherSessions(user.id, sessionId))
        notify.event(c, { type: 'session.revoked', userId: user.id, sessionId: id })
      return c.body(null, 204)
    },
  )
}
