/** GET /api-keys: the signed-in user's API keys, newest first, never the key; expired ones stay, marked by `expiresAt`. */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { ApiKeySchema, keyJson } from '../schemas.js'
import type { ApiKeyDeps } from './deps.js'

export const listApiKeys = <U extends UserRecord>(deps: ApiKeyDeps<U>) =>
  deps.route.guarded(
    {
      method: 'get',
      path: '/api-keys',
      operationId: 'listApiKeys',
      tags: ['api-keys'],
      summary: 'Your API keys',
      responses: { 200: jsonContent(z.array(ApiKeySchema), 'Newest first; revoked keys are gone, expired ones stay') },
    },
    {},
    async (c) => c.json((await deps.store.listApiKeys(c.var.user.id)).map(keyJson), 200),
  )
