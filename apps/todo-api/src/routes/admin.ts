/**
 * GET /admin/stats, guarded by the `admin` policy (`user.raw.role === 'admin'`, registered in
 * auth.ts). The policy reads the user as stored at request time, so `cli set-role` applies at once.
 * GET /admin/access tells any signed-in user whether they pass it (the front end's operators'
 * screen, docs/guide/operators.md), with a 200 either way.
 */
import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { type AppAuth, isAdmin } from '../auth.js'
import type { AppDatabase } from '../db/index.js'

const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ format: 'int64' })

const Stats = z.object({ users: Count.openapi({ example: 12 }), todos: Count.openapi({ example: 345 }) }).openapi('Stats')

const Access = z
  .object({ operator: z.boolean().openapi({ description: 'Whether the caller passes the `admin` policy now' }) })
  .openapi('AdminAccess')

export const adminRoutes = (app: OpenAPIHono, { auth, db }: { auth: AppAuth; db: AppDatabase }) => {
  app.openapi(
    auth.route({
      method: 'get',
      path: '/admin/access',
      operationId: 'getAdminAccess',
      auth: true,
      tags: ['admin'],
      summary: 'Whether the caller is an operator (passes the `admin` policy)',
      responses: { 200: { description: 'The answer', content: { 'application/json': { schema: Access } } } },
    }),
    (c) => c.json({ operator: isAdmin(c.var.user) }, 200),
  )
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
}
