/** POST /two-factor/disable: turns the second factor off with the password (or a fresh session) and a code or a recovery code. */

import { z } from '@hono/zod-openapi'
import { accountEvents } from '../../account-events.js'
import { CurrentPasswordField } from '../../fields.js'
import { limitBy } from '../../limits.js'
import { jsonBody, problemResponse } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { AnyCode } from '../codes.js'
import { passwordThenCode } from '../password-then-code.js'

export const disableTwoFactor = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'twoFactor'>,
) => {
  const { route, store, notify, options } = deps
  route.guarded(
    {
      tags: ['two-factor'],
      method: 'post',
      path: '/two-factor/disable',
      fresh: options.freshAge,
      orCurrentPassword: true,
      operationId: 'disableTwoFactor',
      summary: 'Turn two-factor authentication off with the password and a code or a recovery code',
      request: {
        body: jsonBody(z.object({ currentPassword: CurrentPasswordField, code: AnyCode }).openapi('TwoFactorDisableRequest')),
      },
      responses: {
        204: { description: 'Off; the key and the recovery codes are deleted' },
        400: problemResponse('Invalid input, a wrong current password, or a wrong or used code'),
        409: problemResponse('Two-factor authentication is not on'),
      },
    },
    { limit: { name: 'two-factor-disable', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { currentPassword, code } = c.req.valid('json')
      const { user } = c.var
      const spent = await passwordThenCode(deps, c, c.var, currentPassword, code, true)
      if (spent === 'recovery') {
        notify.event(c, { type: 'recovery_code.used', userId: user.id })
        notify.mail({ kind: 'recovery-code-used', to: user.email, usedFor: 'disable-two-factor' })
      }
      await store.deleteTwoFactor({
        userId: user.id,
        keepSessionId: c.var.sessionId,
        revoke: accountEvents['two-factor-disabled'],
      })
      notify.event(c, { type: 'two_factor.disabled', userId: user.id })
      notify.mail({ kind: 'two-factor-disabled', to: user.email })
      return c.body(null, 204)
    },
  )
}
