/** GET /passkeys: the signed-in user's passkeys, oldest first. */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from '../deps.js'
import { PasskeySchema, passkeyJson } from '../schemas.js'

export const passkeyList = <U extends UserRecord>(deps: PasskeyDeps<U>) =>
  deps.route.guarded(
    {
      method: 'get',
      path: '/passkeys',
      operationId: 'listPasskeys',
      tags: ['passkeys'],
      summary: 'The passkeys of the signed-in user',
      responses: { 200: jsonContent(z.array(PasskeySchema).max(10_000), 'Oldest first') },
    },
    {},
    async (c) => c.json((await deps.store.listPasskeys(c.var.user.id)).map(passkeyJson), 200),
  )
