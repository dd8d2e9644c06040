/** PATCH /passkeys/{id}: renames one of the signed-in user's passkeys; another user's id is 404. */
import { z } from '@hono/zod-openapi'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from '../deps.js'
import { passkeyNotFound } from '../errors.js'
import { PasskeyIdParam, PasskeyName, PasskeySchema, passkeyJson } from '../schemas.js'

export const passkeyRename = <U extends UserRecord>(deps: PasskeyDeps<U>) =>
  deps.route.guarded(
    {
      method: 'patch',
      path: '/passkeys/{id}',
      operationId: 'renamePasskey',
      tags: ['passkeys'],
      summary: 'Rename a passkey',
      request: { params: PasskeyIdParam, body: jsonBody(z.object({ name: PasskeyName }).openapi('PasskeyRenameRequest')) },
      responses: {
        200: jsonContent(PasskeySchema, 'Renamed'),
        400: problemResponse('Invalid input'),
        404: problemResponse('No passkey of yours with this id'),
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { name } = c.req.valid('json')
      const renamed = await deps.store.renamePasskey(c.var.user.id, id, name)
      if (!renamed) throw passkeyNotFound()
      return c.json(passkeyJson(renamed), 200)
    },
  )
