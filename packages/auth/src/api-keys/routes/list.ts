/**
 * GET /api-keys: the signed-in user's API keys, never the key: the live ones newest first, then
 * the expired ones (marked by `expiresAt`) newest first, at most 100 in all.
 */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { ApiKeySchema, keyJson, LIST_MAX } from '../schemas.js'
import type { ApiKeyDeps } from './deps.js'

export const listApiKeys = <U extends UserRecord>(deps: ApiKeyDeps<U>) =>
  deps.route.guarded(
    {
      method: 'get',
      path: '/api-keys',
      operationId: 'listApiKeys',
      tags: ['api-keys'],
      summary: 'Your API keys',
      responses: {
        200: jsonContent(
          z.array(ApiKeySchema).max(LIST_MAX),
          'Live keys newest first, then expired ones newest first (at most 100); revoked keys are gone',
        ),
      },
    },
    {},
    async (c) => {
      const now = deps.options.now().getTime()
      const keys = await deps.store.listApiKeys(c.var.user.id)
      const live = keys.filter((k) => k.expiresAt.getTime() > now)
      const expired = keys.filter((k) => k.expiresAt.getTime() <= now)
      return c.json([...live, ...expired].slice(0, LIST_MAX).map(keyJson), 200)
    },
  )
