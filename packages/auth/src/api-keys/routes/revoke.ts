/**
 * DELETE /api-keys/{id}: revokes one of the signed-in user's keys; the next request with it is
 * refused (401). Another user's id, an unknown or a malformed one: 404 naming it, never 403.
 */
import { AuthError } from '../../errors.js'
import { problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { ApiKeyIdParam } from '../schemas.js'
import type { ApiKeyDeps } from './deps.js'

// Key ids are UUIDs the server made: anything else matches no key and never reaches the store.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const revokeApiKey = <U extends UserRecord>(deps: ApiKeyDeps<U>) =>
  deps.route.guarded(
    {
      method: 'delete',
      path: '/api-keys/{id}',
      operationId: 'revokeApiKey',
      tags: ['api-keys'],
      summary: 'Revoke an API key',
      request: { params: ApiKeyIdParam },
      responses: {
        204: { description: 'Revoked: the next request with it is refused' },
        404: problemResponse('You have no API key with this id'),
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = c.var
      if (!UUID.test(id) || !(await deps.store.deleteApiKey(user.id, id)))
        throw new AuthError('not_found', { detail: `No API key with id ${id}` })
      deps.notify.event(c, { type: 'api_key.revoked', userId: user.id, keyId: id })
      return c.body(null, 204)
    },
  )
