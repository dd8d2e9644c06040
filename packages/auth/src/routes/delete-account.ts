/**
 * POST /delete-account (docs/reference/lifecycle.md#deleting-the-account): with the current password or a fresh session, the user and every session and
 * token of theirs are deleted in one atomic step; its access tokens and refresh cookie stop working.
 */
import { z } from '@hono/zod-openapi'
import { guardedRoute } from '../route.js'
import {
  bodyGuardResponses,
  CurrentPasswordField,
  jsonBody,
  overloadedResponse,
  problemResponse,
  rateLimitedResponse,
} from '../schemas.js'
import type { UserRecord } from '../store/types.js'
import { confirmHolder, passwordOrFresh, wrongPassword } from './current-password.js'
import type { AuthApp, RouteDeps } from './deps.js'

const DeleteAccountBody = z.object({ currentPassword: CurrentPasswordField }).openapi('DeleteAccountRequest')

export const deleteAccount = <U extends UserRecord>(
  app: AuthApp,
  deps: Pick<RouteDeps<U>, 'store' | 'hasher' | 'limits' | 'notify' | 'guard' | 'cookie' | 'options'>,
) => {
  const { store, limits, notify, guard, cookie, options } = deps
  return app.openapi(
    guardedRoute(
      guard(true),
      {
        auth: true,
        fresh: options.freshAge,
        method: 'post',
        path: '/delete-account',
        operationId: 'deleteAccount',
        tags: ['auth'],
        summary: 'Delete the account with every session and token; the refresh cookie is cleared',
        request: { body: jsonBody(DeleteAccountBody) },
        responses: {
          204: { description: 'The account is gone; its tokens get 401 from now on' },
          400: problemResponse('Invalid input or a wrong current password'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
          503: overloadedResponse,
        },
      },
      [passwordOrFresh(options), limits.perUser('delete-account')],
    ),
    async (c) => {
      const { currentPassword } = c.req.valid('json')
      const { user } = c.var
      const found = await confirmHolder(deps, c, currentPassword)
      // Only while the password read with the proof is still current: a concurrent reset wins.
      if (!(await store.deleteUser(user.id, found.credentialsVersion))) throw wrongPassword()
      cookie.clear(c)
      notify.event(c, { type: 'account.deleted', userId: user.id })
      return c.body(null, 204)
    },
  )
}
