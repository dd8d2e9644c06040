/**
 * POST /admin/users/{id}/disable and /enable (docs/guide/operators.md#disable). Disabling ends
 * every session of the account and everything pending with them in one step; from the next
 * request no token of it works, and every sign-in, once its credential is proven, answers 403
 * `account_disabled` (`admin/disabled.ts`). Enabling brings nothing back: the user signs in again.
 */

import { isDisabled } from '../../account-disabled.js'
import { accountEvents } from '../../account-events.js'
import { AuthError } from '../../errors.js'
import { jsonBody, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { type Accounts, type AdminDeps, adminRoute, notFoundResponse, protectedResponse } from '../accounts.js'
import { DisableBody, UserIdParam } from '../schemas.js'

export const disableRoutes = <U extends UserRecord>(deps: AdminDeps<U>, accounts: Accounts<U>) => {
  const { route, store, notify, options } = deps
  route.guarded(
    {
      method: 'post',
      path: '/admin/users/{id}/disable',
      operationId: 'adminDisableUser',
      ...adminRoute(deps, true),
      summary: 'Disable an account: every session ends, and no sign-in opens it',
      request: { params: UserIdParam, body: jsonBody(DisableBody) },
      responses: {
        204: { description: 'Disabled; the user is mailed' },
        400: problemResponse('A reason the schema refuses'),
        403: problemResponse(protectedResponse),
        404: notFoundResponse,
        409: problemResponse('The operator’s own account (`own_account`)'),
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { reason } = c.req.valid('json')
      const actorId = c.var.user.id
      // Before the policy's verdict on the account: an operator locking themselves out is a mistake, whatever the option.
      if (id === actorId) throw new AuthError('own_account', { detail: 'An operator cannot disable their own account.' })
      const { user } = await accounts.target(c, id)
      const revoked = await store.setUserDisabled({
        userId: id,
        disabledAt: options.now(),
        revoke: accountEvents['account-disabled'],
      })
      if (revoked === null) throw new AuthError('not_found', { detail: `No user with id ${id}` })
      notify.event(c, { type: 'admin.user_disabled', actorId, userId: id, reason })
      for (const sessionId of revoked) notify.event(c, { type: 'session.revoked', userId: id, sessionId })
      if (!isDisabled(user)) notify.mail({ kind: 'account-disabled', to: user.email, byOperator: true })
      return c.body(null, 204)
    },
  )

  route.guarded(
    {
      method: 'post',
      path: '/admin/users/{id}/enable',
      operationId: 'adminEnableUser',
      ...adminRoute(deps, true),
      summary: 'Enable a disabled account: its owner can sign in again',
      request: { params: UserIdParam },
      responses: {
        204: { description: 'Enabled (or it was not disabled); the user is mailed when it was' },
        403: problemResponse(protectedResponse),
        404: notFoundResponse,
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = await accounts.target(c, id)
      const wasDisabled = isDisabled(user)
      if (
        wasDisabled &&
        (await store.setUserDisabled({ userId: id, disabledAt: null, revoke: accountEvents['account-enabled'] })) === null
      )
        throw new AuthError('not_found', { detail: `No user with id ${id}` })
      // Every action is in the audit log, one that changed nothing too (as a repeated disabling is); the mail tells of a change only.
      notify.event(c, { type: 'admin.user_enabled', actorId: c.var.user.id, userId: id })
      if (wasDisabled) notify.mail({ kind: 'account-enabled', to: user.email, byOperator: true })
      return c.body(null, 204)
    },
  )
}
