/** GET /me: the signed-in user as stored now. */

import { jsonContent } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { UserSchema, userJson } from '../user-json.js'

export const me = <U extends UserRecord>({ route }: Pick<RouteDeps<U>, 'route'>) =>
  route.guarded(
    {
      method: 'get',
      path: '/me',
      // Any live API key may ask whose it is.
      apiKeys: 'any',
      operationId: 'getMe',
      tags: ['auth'],
      summary: 'The signed-in user',
      responses: { 200: jsonContent(UserSchema, 'The signed-in user') },
    },
    {},
    (c) => c.json(userJson(c.var.user.raw), 200),
  )
