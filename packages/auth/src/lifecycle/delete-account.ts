/**
 * POST /delete-account (docs/reference/lifecycle.md#deleting-the-account): with the current
 * password or a fresh session (and, when the account has a second factor, a current code or an
 * unused recovery code), the user and every session and token of theirs are deleted in one atomic
 * step; its access tokens and refresh cookie stop working, and the address the account had gets an
 * `account-deleted` notice.
 */
import { z } from '@hono/zod-openapi'
import { confirmHolder, wrongPassword } from '../current-password.js'
import { AuthError } from '../errors.js'
import { CurrentPasswordField } from '../fields.js'
import { limitBy } from '../limits.js'
import { jsonBody, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

const codeRequired = () =>
  new AuthError('wrong_code', {
    detail: 'Two-factor authentication is on: send a code of the authenticator app or a recovery code.',
    errors: [{ path: 'code', code: 'required', message: 'Code is required while two-factor authentication is on' }],
  })

export const deleteAccount = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'cookie' | 'options' | 'stepUpCode'>,
) => {
  const { route, store, notify, cookie, options, stepUpCode } = deps
  const DeleteAccountBody = z
    .object({
      currentPassword: CurrentPasswordField,
      code: stepUpCode.field(
        'Required when two-factor authentication is on: a code of the authenticator app or an unused recovery code',
      ),
    })
    .openapi('DeleteAccountRequest')
  route.guarded(
    {
      fresh: options.freshAge,
      orCurrentPassword: true,
      method: 'post',
      path: '/delete-account',
      operationId: 'deleteAccount',
      tags: ['auth'],
      summary: 'Delete the account with every session and token; the refresh cookie is cleared',
      request: { body: jsonBody(DeleteAccountBody) },
      responses: {
        204: { description: 'The account is gone; its tokens get 401 from now on' },
        400: problemResponse(
          'Invalid input, a wrong current password, or (with two-factor authentication on) a missing, wrong or used code',
        ),
      },
    },
    { limit: { name: 'delete-account', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { currentPassword, code } = c.req.valid('json')
      const { user } = c.var
      const found = await confirmHolder(deps, c.var, currentPassword)
      // A second factor guards the account's end as it guards its sign-in.
      const spent = await stepUpCode.check(c, user.id, code)
      // A missing code is a field left out, not a wrong code: no `two_factor.failed`, as on reauth.
      if (spent === 'missing') throw codeRequired()
      // Only while the password read with the proof is still current: a concurrent reset wins.
      if (!(await store.deleteUser(user.id, found.credentialsVersion))) throw wrongPassword()
      cookie.clear(c)
      if (spent === 'recovery') stepUpCode.recovered(c, found.user, 'delete-account')
      notify.event(c, { type: 'account.deleted', userId: user.id })
      notify.mail({ kind: 'account-deleted', to: found.user.email })
      return c.body(null, 204)
    },
  )
}
