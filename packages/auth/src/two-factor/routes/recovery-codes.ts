/** POST /two-factor/recovery-codes: a fresh set of recovery codes, with the password (or a fresh session) and a code of the app. */
import { z } from '@hono/zod-openapi'
import { CurrentPasswordField } from '../../fields.js'
import { limitBy } from '../../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { notEnabled, RecoveryCodesSchema, TotpCode } from '../codes.js'
import { passwordThenCode } from '../password-then-code.js'

export const renewRecoveryCodes = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'twoFactor'>,
) => {
  const { route, store, options, twoFactor } = deps
  route.guarded(
    {
      tags: ['two-factor'],
      method: 'post',
      path: '/two-factor/recovery-codes',
      fresh: options.freshAge,
      orCurrentPassword: true,
      operationId: 'renewRecoveryCodes',
      summary: 'Replace the recovery codes with a fresh set (the password and a code from the app)',
      request: {
        body: jsonBody(z.object({ currentPassword: CurrentPasswordField, code: TotpCode }).openapi('RecoveryCodesRequest')),
      },
      responses: {
        200: jsonContent(RecoveryCodesSchema, 'The new set, shown this once; the old set no longer works'),
        400: problemResponse('Invalid input, a wrong current password, or a wrong or used code'),
        409: problemResponse('Two-factor authentication is not on'),
      },
    },
    { limit: { name: 'two-factor-recovery-codes', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { currentPassword, code } = c.req.valid('json')
      const { user } = c.var
      await passwordThenCode(deps, c, c.var, currentPassword, code, false)
      const recovery = twoFactor.recoveryCodes(user.id)
      if (!(await store.replaceRecoveryCodes(user.id, recovery.hashes))) throw notEnabled()
      return c.json({ recoveryCodes: recovery.codes }, 200)
    },
  )
}
