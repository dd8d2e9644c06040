/** GET /me: the signed-in user as stored now. */

import { jsonContent } from '../openapi.js'
import { guardedRoute } from '../route.js'
import type { UserRecord } from '../store/types.js'
import { UserSchema, userJson } from '../user-json.js'
import type { AuthApp, RouteDeps } from './deps.js'

export const me = <U extends UserRecord>(app: AuthApp, { guard }: Pick<RouteDeps<U>, 'guard'>) =>
  app.openapi(
    guardedRoute(guard(true), {
      auth: true,
      method: 'get',
      path: '/me',
      operationId: 'getMe',
      tags: ['auth'],
      summary: 'The signed-in user',
      responses: { 200: jsonContent(UserSchema, 'The signed-in user') },
    }),
    (c) => c.json(userJson(c.var.user.raw), 200),
  )
