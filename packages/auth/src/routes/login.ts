/**
 * POST /login. A wrong password and an unknown email answer the same bytes after the same
 * work: exactly one argon2 verification, against a decoy hash when there is no account. An
 * account with a second factor gets the second step's 202 instead of a session.
 */
import { z } from '@hono/zod-openapi'
import { canonicalEmail } from '../email.js'
import { AuthError } from '../errors.js'
import { EmailField, isStorableText, PasswordField } from '../fields.js'
import { limitBy, type Subject } from '../limits.js'
import { jsonBody, problemResponse, signedInResponse, unauthorizedResponse } from '../openapi.js'
import { normalizePassword } from '../password.js'
import type { LookupFacts } from '../route-builder.js'
import type { RouteDeps } from '../route-deps.js'
import { amrOf } from '../session-core.js'
import type { UserRecord } from '../store/types.js'
import { AuthResultSchema } from '../user-json.js'

const invalidCredentials = () =>
  new AuthError('invalid_credentials', {
    detail: 'The email or password is wrong.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

const LoginBody = z.object({ email: EmailField, password: PasswordField }).openapi('LoginRequest')
const LoginPeek = { email: z.string() }

/**
 * The browser of a login when the account its email names has signed in from it before (with any
 * of the device cookies the request carries). Without a device cookie nothing is looked up. The
 * device is looked up for an unknown email too (under no account), so both cost the same queries.
 */
const knownDevice =
  <U extends UserRecord>({ store, devices }: Pick<RouteDeps<U>, 'store' | 'devices'>) =>
  async ({ c, peek }: LookupFacts<typeof LoginPeek>): Promise<Subject | null> => {
    const device = devices.of(c)
    if (!device.presented || peek.email === undefined) return null
    const email = canonicalEmail(peek.email)
    // Read before validation: only what could be a stored address is looked up (PostgreSQL refuses NUL).
    if (email.length > 254 || !isStorableText(email)) return null
    const userId = (await store.findUserByEmail(email))?.user.id ?? null
    const deviceHash = await devices.knownTo(c, userId ?? '')
    return userId && deviceHash ? { userId, deviceHash } : null
  }

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
      },
    },
    {
      peek: LoginPeek,
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
      const found = await store.findUserByEmail(email)
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
