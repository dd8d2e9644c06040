/**
 * DELETE /passkeys/{id}: removes one of the signed-in user's passkeys; another user's id is 404,
 * and the last way to sign in (no password, no other passkey) stays: 409.
 */
import { AuthError } from '../../errors.js'
import { problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from '../deps.js'
import { passkeyNotFound } from '../errors.js'
import { PasskeyIdParam } from '../schemas.js'

export const passkeyRemove = <U extends UserRecord>(deps: PasskeyDeps<U>) =>
  deps.route.guarded(
    {
      fresh: deps.options.freshAge,
      method: 'delete',
      path: '/passkeys/{id}',
      operationId: 'removePasskey',
      tags: ['passkeys'],
      summary: 'Remove a passkey',
      request: { params: PasskeyIdParam },
      responses: {
        204: { description: 'Removed; a notice is mailed' },
        400: problemResponse('Invalid input'),
        404: problemResponse('No passkey of yours with this id'),
        409: problemResponse('It is the last way to sign in to the account (no password, no other passkey)'),
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = c.var
      const passkey = await deps.store.findPasskey(id)
      const outcome = passkey?.userId === user.id ? await deps.store.deletePasskey(user.id, id) : 'not_found'
      if (outcome === 'not_found' || !passkey) throw passkeyNotFound()
      if (outcome === 'last_sign_in')
        throw new AuthError('last_sign_in_method', {
          detail: 'This passkey is the last way to sign in to the account; add another passkey or a password first.',
        })
      deps.notify.event(c, { type: 'passkey.removed', userId: user.id, passkeyId: id })
      deps.notify.mail({ kind: 'passkey-removed', to: user.email, name: passkey.name })
      return c.body(null, 204)
    },
  )
