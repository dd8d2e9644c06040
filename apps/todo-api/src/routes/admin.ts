/**
 * GET /admin/stats, guarded by the `admin` policy (`user.raw.role === 'admin'`, registered in
 * auth.ts). The policy reads the user as stored at request time, so `cli set-role` applies at once.
 */
import { type OpenAPIHono, z } from '@hono/zod-openapi'
import type { AppAuth } from '../auth.js'
import type { AppDatabase } from '../db/index.js'

const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ format: 'int64' })

const Stats = z.object({ users: Count.openapi({ example: 12 }), todos: Count.openapi({ example: 345 }) }).openapi('Stats')

export const adminRoutes = (app: OpenAPIHono, { auth, db }: { auth: AppAuth; db: AppDatabase }) =>
  app.openapi(
    auth.route({
      method: 'get',
      path: '/admin/stats',
      operationId: 'getAdminStats',
      auth: 'admin',
      tags: ['admin'],
      summary: 'Number of users and todos',
      responses: { 200: { description: 'Row counts', content: { 'application/json': { schema: Stats } } } },
    }),
    async (c) => c.json(await db.stats(), 200),
  )
