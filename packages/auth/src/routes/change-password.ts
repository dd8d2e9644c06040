/** POST /change-password: replaces the password and revokes every other session of the user. */
import { z } from '@hono/zod-openapi'
import { accountEvents } from '../account-events.js'
import { NewPasswordField, PasswordField } from '../fields.js'
import { bodyGuardResponses, jsonBody, overloadedResponse, problemResponse, rateLimitedResponse } from '../openapi.js'
import { EMAIL_PASSWORD, isEmailPassword, normalizePassword } from '../password.js'
import { guardedRoute } from '../route.js'
import type { UserRecord } from '../store/types.js'
import { fieldFailure } from '../validation.js'
import { refuseBreachedPassword } from './breached.js'
import { checkCurrentPassword, wrongPassword } from './current-password.js'
import type { AuthApp, RouteDeps } from './deps.js'

const ChangePasswordBody = z
  .object({ currentPassword: PasswordField, newPassword: NewPasswordField })
  .openapi('ChangePasswordRequest')

export const changePassword = <U extends UserRecord>(
  app: AuthApp,
  deps: Pick<RouteDeps<U>, 'store' | 'hasher' | 'guard' | 'limits' | 'notify' | 'options'>,
) => {
  const { store, hasher, guard, limits, notify } = deps
  return app.openapi(
    guardedRoute(
      guard(true),
      {
        auth: true,
        method: 'post',
        path: '/change-password',
        operationId: 'changePassword',
        tags: ['auth'],
        summary: 'Change the password; other sessions are signed out',
        request: { body: jsonBody(ChangePasswordBody) },
        responses: {
          204: { description: 'Password changed; every other session is revoked' },
          400: problemResponse('Invalid input, a refused new password, or a wrong current password'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
          503: overloadedResponse,
        },
      },
      [limits.perUser('change-password')],
    ),
    async (c) => {
      const { currentPassword, newPassword } = c.req.valid('json')
      const { user, sessionId } = c.var
      if (isEmailPassword(newPassword, user.email)) throw fieldFailure('newPassword', 'password_is_email', EMAIL_PASSWORD)
      await refuseBreachedPassword(deps, c, {
        password: newPassword,
        field: 'newPassword',
        endpoint: 'change-password',
        userId: user.id,
      })

      const found = await checkCurrentPassword({ store, hasher }, c, user.id, currentPassword)

      const replaced = await store.replacePassword({
        revoke: accountEvents['password-changed'],
        userId: user.id,
        passwordHash: await hasher(c).hash(normalizePassword(newPassword)),
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
