/**
 * POST /delete-account (docs/reference/lifecycle.md#deleting-the-account): with the current password, the user and every session and
 * token of theirs are deleted in one atomic step; its access tokens and refresh cookie stop working.
 */
import { z } from '@hono/zod-openapi'
import { guardedRoute } from '../route.js'
import {
  bodyGuardResponses,
  jsonBody,
  overloadedResponse,
  PasswordField,
  problemResponse,
  rateLimitedResponse,
} from '../schemas.js'
import type { UserRecord } from '../store/types.js'
import { checkCurrentPassword, wrongPassword } from './current-password.js'
import type { AuthApp, RouteDeps } from './deps.js'

const DeleteAccountBody = z.object({ currentPassword: PasswordField }).openapi('DeleteAccountRequest')

export const deleteAccount = <U extends UserRecord>(
  app: AuthApp,
  deps: Pick<RouteDeps<U>, 'store' | 'hasher' | 'limits' | 'notify' | 'guard' | 'cookie'>,
) => {
  const { store, limits, notify, guard, cookie } = deps
  return app.openapi(
    guardedRoute(
      guard(true),
      {
        auth: true,
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
      [limits.perUser('delete-account')],
    ),
    async (c) => {
      const { currentPassword } = c.req.valid('json')
      const { user } = c.var
      const found = await checkCurrentPassword(deps, user.id, currentPassword)
      // Only while the password that was checked is still current: a concurrent reset wins.
      if (!(await store.deleteUser(user.id, found.credentialsVersion))) throw wrongPassword()
      cookie.clear(c)
      notify.event(c, { type: 'account.deleted', userId: user.id })
      return c.body(null, 204)
    },
  )
}
