/** GET /sessions (docs/reference/endpoints.md#sessions): the caller's live sessions, most recently used first. */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

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

export const listSessions = <U extends UserRecord>({ route, sessions }: Pick<RouteDeps<U>, 'route' | 'sessions'>) =>
  route.guarded(
    {
      method: 'get',
      path: '/sessions',
      operationId: 'listSessions',
      tags: ['auth'],
      summary: "The caller's live sessions, most recently used first",
      responses: { 200: jsonContent(z.array(SessionSchema).max(10_000), 'Live sessions only') },
    },
    {},
    async (c) => c.json(await sessions.list(c.var.user.id, c.var.sessionId), 200),
  )
