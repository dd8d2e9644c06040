/** POST /change-password: replaces the password and revokes every other session of the user. */

import { z } from '@hono/zod-openapi'
import { accountEvents } from '../account-events.js'
import { whileCheckingBreach } from '../breached-check.js'
import { checkCurrentPassword, wrongPassword } from '../current-password.js'
import { NewPasswordField, PasswordField } from '../fields.js'
import { limitBy } from '../limits.js'
import { jsonBody, problemResponse } from '../openapi.js'
import { EMAIL_PASSWORD, isEmailPassword, normalizePassword } from '../password.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { fieldFailure } from '../validation.js'

const ChangePasswordBody = z
  .object({ currentPassword: PasswordField, newPassword: NewPasswordField })
  .openapi('ChangePasswordRequest')

export const changePassword = <U extends UserRecord>(deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options'>) => {
  const { route, store, notify } = deps
  route.guarded(
    {
      method: 'post',
      path: '/change-password',
      operationId: 'changePassword',
      tags: ['auth'],
      summary: 'Change the password; other sessions are signed out',
      request: { body: jsonBody(ChangePasswordBody) },
      responses: {
        204: { description: 'Password changed; every other session is revoked' },
        400: problemResponse('Invalid input, a refused new password, or a wrong current password'),
      },
    },
    { limit: { name: 'change-password', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { currentPassword, newPassword } = c.req.valid('json')
      const { user, sessionId } = c.var
      if (isEmailPassword(newPassword, user.email)) throw fieldFailure('newPassword', 'password_is_email', EMAIL_PASSWORD)
      // The current password is verified and the new one hashed while the range service answers;
      // a breached new password is refused whatever the current one was, as when the check ran first.
      const [found, passwordHash] = await whileCheckingBreach(
        deps,
        c,
        { password: newPassword, field: 'newPassword', endpoint: 'change-password', userId: user.id },
        async () => {
          const found = await checkCurrentPassword({ store }, c.var, currentPassword)
          return [found, await c.var.hasher.hash(normalizePassword(newPassword))] as const
        },
      )

      const replaced = await store.replacePassword({
        revoke: accountEvents['password-changed'],
        userId: user.id,
        passwordHash,
        credentialsVersion: found.credentialsVersion,
        keepSessionId: sessionId,
      })
      // A reset or another change replaced the password this request verified: it is no longer current.
      if (!replaced) throw wrongPassword()
      notify.event(c, { type: 'password.changed', userId: user.id })
      notify.mail({ kind: 'password-changed', to: found.user.email })
      return c.body(null, 204)
    },
  )
}
