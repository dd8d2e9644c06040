/**
 * GET /admin/users and GET /admin/users/{id} (docs/guide/operators.md#search): accounts as an
 * operator sees them, newest first, a page at a time.
 */
import { jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { type Accounts, type AdminDeps, adminRoute, notFoundResponse } from '../accounts.js'
import {
  AdminUserPageSchema,
  AdminUserSchema,
  adminUserJson,
  decodeCursor,
  encodeCursor,
  prefixOf,
  UserIdParam,
  UserSearchQuery,
} from '../schemas.js'

const DEFAULT_LIMIT = 20

export const readRoutes = <U extends UserRecord>(deps: AdminDeps<U>, accounts: Accounts<U>) => {
  const { route, store } = deps
  route.guarded(
    {
      method: 'get',
      path: '/admin/users',
      operationId: 'adminListUsers',
      ...adminRoute(deps, false),
      summary: 'Find accounts by a prefix of their email or name, newest first',
      request: { query: UserSearchQuery },
      responses: {
        200: jsonContent(AdminUserPageSchema, 'A page of accounts and the cursor of the next'),
        400: problemResponse('A query, cursor or limit the schema refuses'),
      },
    },
    {},
    async (c) => {
      const { query, cursor, limit = DEFAULT_LIMIT } = c.req.valid('query')
      // One more than the page: whether a next page exists, without counting.
      const found = await store.searchUsers({
        prefix: prefixOf(query),
        after: cursor === undefined ? null : decodeCursor(cursor),
        limit: limit + 1,
        live: accounts.live(),
      })
      const page = found.slice(0, limit)
      const last = page.at(-1)
      const next = found.length > limit && last ? encodeCursor(last.user) : null
      return c.json({ users: page.map(adminUserJson), next }, 200)
    },
  )

  route.guarded(
    {
      method: 'get',
      path: '/admin/users/{id}',
      operationId: 'adminGetUser',
      ...adminRoute(deps, false),
      summary: 'One account as an operator sees it',
      request: { params: UserIdParam },
      responses: { 200: jsonContent(AdminUserSchema, 'The account'), 404: notFoundResponse },
    },
    {},
    async (c) => c.json(adminUserJson(await accounts.find(c.req.valid('param').id)), 200),
  )
}
