/**
 * POST /login. A wrong password and an unknown email answer the same bytes after the same
 * work: exactly one argon2 verification, against a decoy hash when there is no account. An
 * account with a second factor gets the second step's 202 instead of a session.
 */

import { z } from '@hono/zod-openapi'
import { refuseDisabled } from '../account-disabled.js'
import { AuthError } from '../errors.js'
import { EmailField, PasswordField } from '../fields.js'
import { accountByEmail, EmailPeek, knownDevice } from '../known-device.js'
import { limitBy } from '../limits.js'
import { jsonBody, problemResponse, signedInResponse, unauthorizedResponse } from '../openapi.js'
import { normalizePassword } from '../password.js'
import type { RouteDeps } from '../route-deps.js'
import { amrOf } from '../session-proof.js'
import type { UserRecord } from '../store/types.js'
import { AuthResultSchema } from '../user-json.js'

const invalidCredentials = () =>
  new AuthError('invalid_credentials', {
    detail: 'The email or password is wrong.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

const LoginBody = z.object({ email: EmailField, password: PasswordField }).openapi('LoginRequest')

export const login = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'sessions' | 'decoy' | 'notify' | 'secondStep' | 'devices'>,
) => {
  const { route, store, sessions, decoy, notify, secondStep, devices } = deps
  route.public(
    {
      method: 'post',
      path: '/login',
      operationId: 'login',
      tags: ['auth'],
      summary: 'Sign in',
      request: { body: jsonBody(LoginBody) },
      responses: {
        200: signedInResponse(AuthResultSchema),
        202: secondStep.response('The password is right'),
        400: problemResponse('Invalid input'),
        401: unauthorizedResponse('Wrong email or password'),
        403: problemResponse('The password is right and an operator disabled the account (`account_disabled`)'),
      },
    },
    {
      peek: EmailPeek,
      // From a browser the account knows, the login counts on its device instead of the email
      // (docs/reference/limits.md#keys), so failures from elsewhere never refuse the owner's known browser.
      lookup: knownDevice(deps),
      limit: { name: 'login', keys: [limitBy.ip, limitBy.email(), limitBy.device] },
      hashes: true,
    },
    async (c) => {
      const { email, password } = c.req.valid('json')
      const { hasher } = c.var
      const decoyHash = await decoy()
      // Read once: by the lookup when the browser sent a device cookie, else here.
      const found = await accountByEmail(store, c.var.subject, email)
      const candidate = normalizePassword(password)
      // An account without a password (signed up or settled by email) is verified against the
      // decoy like an unknown email: any password gets the same 401, after the same work.
      const ok = await hasher.verify(found?.passwordHash ?? decoyHash, candidate)
      if (!found || found.passwordHash === null || !ok) {
        notify.event(c, { type: 'login.failed', method: 'password', ...(found ? { userId: found.user.id } : {}) })
        throw invalidCredentials()
      }

      // Both writes are conditional on the credentials version read with the verified hash: a
      // reset or password change that lands during the verification wins over this login.
      if (hasher.needsRehash(found.passwordHash))
        await store.updatePasswordHash(found.user.id, await hasher.hash(candidate), found.credentialsVersion)
      // Only after the right password, so a wrong one costs the same for every account.
      refuseDisabled(found.user)
      const second = await secondStep.due(c, found.user.id, found.credentialsVersion, 'pwd')
      if (second) {
        // The browser keeps its id through the second step, which then finds it new or known.
        devices.set(c)
        return c.json(second, 202)
      }
      const started = await sessions.start(c, found.user, found.credentialsVersion, amrOf('pwd'))
      if (!started) {
        notify.event(c, { type: 'login.failed', method: 'password', userId: found.user.id })
        throw invalidCredentials()
      }
      notify.event(c, { type: 'login.succeeded', method: 'password', userId: found.user.id, sessionId: started.sessionId })
      devices.set(c)
      await devices.signedIn(c, found.user, started.sessionId, { notice: true })
      return c.json(started.body, 200)
    },
  )
}
