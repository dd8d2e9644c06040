/**
 * POST /login. A wrong password and an unknown email answer the same bytes after the same
 * work: exactly one argon2 verification, against a decoy hash when there is no account.
 */
import { createRoute, z } from '@hono/zod-openapi'
import { AuthError } from '../errors.js'
import { secondStep } from '../passkeys/second-step.js'
import { normalizePassword } from '../password.js'
import {
  AuthResultSchema,
  bodyGuardResponses,
  EmailField,
  internalErrorResponse,
  jsonBody,
  jsonContent,
  overloadedResponse,
  PasswordField,
  problemResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from '../schemas.js'
import type { UserRecord } from '../store/types.js'
import type { AuthApp, RouteDeps } from './deps.js'
import { ChallengeSchema } from './two-factor.js'

const invalidCredentials = () =>
  new AuthError('invalid_credentials', {
    detail: 'The email or password is wrong.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

const LoginBody = z.object({ email: EmailField, password: PasswordField }).openapi('LoginRequest')

export const login = <U extends UserRecord>(
  app: AuthApp,
  {
    store,
    sessions,
    hasher,
    decoy,
    limits,
    notify,
    twoFactor,
    passkeys,
  }: Pick<RouteDeps<U>, 'store' | 'sessions' | 'hasher' | 'decoy' | 'limits' | 'notify' | 'twoFactor' | 'passkeys'>,
) =>
  app.openapi(
    createRoute({
      method: 'post',
      path: '/login',
      operationId: 'login',
      security: [],
      tags: ['auth'],
      summary: 'Sign in',
      middleware: [limits.onBodyEmail('login')],
      request: { body: jsonBody(LoginBody) },
      responses: {
        200: jsonContent(AuthResultSchema, 'Signed in; the refresh cookie is set'),
        202: jsonContent(
          ChallengeSchema,
          'The password is right and the account has two-factor authentication on: no token and no cookie yet; finish with POST /auth/two-factor/verify',
        ),
        400: problemResponse('Invalid input'),
        401: unauthorizedResponse('Wrong email or password'),
        ...bodyGuardResponses,
        429: rateLimitedResponse,
        500: internalErrorResponse,
        503: overloadedResponse,
      },
    }),
    async (c) => {
      const { email, password } = c.req.valid('json')
      const found = await store.findUserByEmail(email)
      const candidate = normalizePassword(password)
      const ok = await hasher.verify(found?.passwordHash ?? (await decoy), candidate)
      if (!found || !ok) {
        notify.event(c, { type: 'login.failed', ...(found ? { userId: found.user.id } : {}) })
        throw invalidCredentials()
      }

      // Both writes are conditional on the credentials version read with the verified hash: a
      // reset or password change that lands during the verification wins over this login.
      if (hasher.needsRehash(found.passwordHash))
        await store.updatePasswordHash(found.user.id, await hasher.hash(candidate), found.credentialsVersion)
      // Only after the right password, so a wrong one costs the same for every account.
      if ((await store.findTwoFactor(found.user.id))?.enabledAt) {
        const body = await secondStep({ store, twoFactor, passkeys }, found.user.id, found.credentialsVersion)
        notify.event(c, { type: 'login.challenged', userId: found.user.id })
        return c.json(body, 202)
      }
      const started = await sessions.start(c, found.user, found.credentialsVersion)
      if (!started) {
        notify.event(c, { type: 'login.failed', userId: found.user.id })
        throw invalidCredentials()
      }
      notify.event(c, { type: 'login.succeeded', userId: found.user.id, sessionId: started.sessionId })
      return c.json(started.body, 200)
    },
  )
