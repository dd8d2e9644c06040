/**
 * POST /two-factor/enable: turns the pending key on with a code of the app and the code mailed
 * by setup; the recovery codes are shown once and every other session ends.
 */

import { z } from '@hono/zod-openapi'
import { accountEvents } from '../../account-events.js'
import { limitBy } from '../../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { alreadyEnabled, EmailCode, notEnabled, RecoveryCodesSchema, TotpCode, wrongCode } from '../codes.js'

export const enableTwoFactor = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options' | 'twoFactor' | 'addCredential'>,
) => {
  const { route, store, notify, options, twoFactor, addCredential } = deps
  route.guarded(
    {
      tags: ['two-factor'],
      method: 'post',
      path: '/two-factor/enable',
      operationId: 'enableTwoFactor',
      summary: 'Turn the pending key on with a code from the app and the code mailed by setup; every other session is signed out',
      request: {
        body: jsonBody(z.object({ code: TotpCode, emailCode: EmailCode }).openapi('TwoFactorEnableRequest')),
      },
      responses: {
        200: jsonContent(RecoveryCodesSchema, 'On; the recovery codes are shown this once'),
        400: problemResponse(
          'Invalid input, a wrong or used code, or a wrong, used or expired email code (the fifth wrong one kills it)',
        ),
        409: problemResponse('Already on, or not set up'),
      },
    },
    { limit: { name: 'two-factor-enable', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const { code, emailCode } = c.req.valid('json')
      const { user, sessionId } = c.var
      const factor = await store.findTwoFactor(user.id)
      if (!factor) throw notEnabled('Set up two-factor authentication first (POST /auth/two-factor/setup).')
      if (factor.enabledAt) throw alreadyEnabled()
      const step = await twoFactor.freshStep(user.id, factor, code)
      if (step === null) {
        // The mailed code is left as it is: only a wrong email code counts against it.
        notify.event(c, { type: 'two_factor.failed', userId: user.id })
        throw wrongCode()
      }
      await addCredential.spend(user.id, emailCode)
      const recovery = twoFactor.recoveryCodes(user.id)
      const revoked = await store.enableTwoFactor({
        revoke: accountEvents['two-factor-enabled'],
        userId: user.id,
        secret: factor.secret,
        step,
        recoveryCodeHashes: recovery.hashes,
        keepSessionId: sessionId,
        now: options.now(),
      })
      // A concurrent setup replaced the key, or a concurrent enable used this step.
      if (!revoked) throw wrongCode()
      for (const id of revoked) notify.event(c, { type: 'session.revoked', userId: user.id, sessionId: id })
      notify.event(c, { type: 'two_factor.enabled', userId: user.id })
      notify.mail({ kind: 'two-factor-enabled', to: user.email })
      return c.json({ recoveryCodes: recovery.codes }, 200)
    },
  )
}
