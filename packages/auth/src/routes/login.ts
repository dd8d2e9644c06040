/**
 * POST /login. A wrong password and an unknown email answer the same bytes after the same
 * work: exactly one argon2 verification, against a decoy hash when there is no account.
 */
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { peekJson } from '../body.js'
import { emailFromBody } from '../email.js'
import { AuthError } from '../errors.js'
import { EmailField, isStorableText, PasswordField } from '../fields.js'
import type { KnownDevice } from '../limits.js'
import { tokenHash } from '../opaque-token.js'
import {
  bodyGuardResponses,
  internalErrorResponse,
  jsonBody,
  jsonContent,
  overloadedResponse,
  problemResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from '../openapi.js'
import { normalizePassword } from '../password.js'
import { amrOf } from '../session.js'
import type { UserRecord } from '../store/types.js'
import { CHALLENGE_SECONDS } from '../two-factor/factor.js'
import { AuthResultSchema } from '../user-json.js'
import type { AuthApp, RouteDeps } from './deps.js'
import { ChallengeSchema } from './two-factor.js'

const invalidCredentials = () =>
  new AuthError('invalid_credentials', {
    detail: 'The email or password is wrong.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

/**
 * The second step of every sign-in method (docs/reference/two-factor.md#signing-in): for an
 * account with a second factor, a challenge (the 202 body) instead of a session; `null` otherwise.
 * `credentialsVersion` is the one the first step read, so a reset since then opens nothing.
 * `methods` says what may answer it: `totp` and `recovery`, and `passkey` when the account has
 * one, with request options listing its passkeys whose WebAuthn challenge belongs to this
 * challenge alone (docs/reference/passkeys.md#a-passkey-as-the-second-step).
 */
export const secondStep = async <U extends UserRecord>(
  { store, notify, twoFactor, passkeys }: Pick<RouteDeps<U>, 'store' | 'notify' | 'twoFactor' | 'passkeys'>,
  c: Context,
  userId: string,
  credentialsVersion: number,
) => {
  if (!(await store.findTwoFactor(userId))?.enabledAt) return null
  const challenge = await twoFactor.challenge(userId, credentialsVersion)
  notify.event(c, { type: 'login.challenged', userId })
  const keys = passkeys ? await store.listPasskeys(userId) : []
  const methods: ('totp' | 'recovery' | 'passkey')[] = ['totp', 'recovery', ...(keys.length > 0 ? (['passkey'] as const) : [])]
  return {
    twoFactorRequired: true as const,
    challenge,
    expiresIn: CHALLENGE_SECONDS,
    methods,
    ...(passkeys && keys.length > 0
      ? { passkeyOptions: await passkeys.requestOptions('two-factor', { userId, boundTo: tokenHash(challenge) }, keys) }
      : {}),
  }
}

const LoginBody = z.object({ email: EmailField, password: PasswordField }).openapi('LoginRequest')

/**
 * The browser of a login when the account its email names has signed in from it before, once per
 * request (the limit asks twice). Without a signed device cookie nothing is looked up. The device
 * is looked up for an unknown email too (under no account), so both cost the same queries.
 */
const knownDevices = <U extends UserRecord>({ store, devices }: Pick<RouteDeps<U>, 'store' | 'devices'>) => {
  const found = new WeakMap<Context, Promise<KnownDevice>>()
  const lookUp = async (c: Context): Promise<KnownDevice> => {
    const device = devices.of(c)
    if (!device.presented) return null
    const email = emailFromBody(await peekJson(c))
    // Read before validation: only what could be a stored address is looked up (PostgreSQL refuses NUL).
    if (email === null || email.length > 254 || !isStorableText(email)) return null
    const userId = (await store.findUserByEmail(email))?.user.id ?? null
    const known = await store.knowsDevice(userId ?? '', device.hash)
    return userId && known ? { userId, deviceHash: device.hash } : null
  }
  return (c: Context) => {
    let known = found.get(c)
    if (!known) {
      known = lookUp(c)
      found.set(c, known)
    }
    return known
  }
}

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
    devices,
    passkeys,
  }: Pick<RouteDeps<U>, 'store' | 'sessions' | 'hasher' | 'decoy' | 'limits' | 'notify' | 'twoFactor' | 'devices' | 'passkeys'>,
) => {
  const knownDevice = knownDevices({ store, devices })
  return app.openapi(
    createRoute({
      method: 'post',
      path: '/login',
      operationId: 'login',
      security: [],
      tags: ['auth'],
      summary: 'Sign in',
      middleware: [limits.login(knownDevice)],
      request: { body: jsonBody(LoginBody) },
      responses: {
        200: jsonContent(AuthResultSchema, 'Signed in; the refresh cookie and the device cookie are set'),
        202: jsonContent(
          ChallengeSchema,
          'The password is right and the account has two-factor authentication on: no token and no refresh cookie yet (the device cookie is set); finish with POST /auth/two-factor/verify',
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
      const decoyHash = await decoy()
      const found = await store.findUserByEmail(email)
      const candidate = normalizePassword(password)
      // An account without a password (signed up or settled by email) is verified against the
      // decoy like an unknown email: any password gets the same 401, after the same work.
      const ok = await hasher(c).verify(found?.passwordHash ?? decoyHash, candidate)
      if (!found || found.passwordHash === null || !ok) {
        notify.event(c, { type: 'login.failed', method: 'password', ...(found ? { userId: found.user.id } : {}) })
        throw invalidCredentials()
      }

      // Both writes are conditional on the credentials version read with the verified hash: a
      // reset or password change that lands during the verification wins over this login.
      if (hasher(c).needsRehash(found.passwordHash))
        await store.updatePasswordHash(found.user.id, await hasher(c).hash(candidate), found.credentialsVersion)
      // Only after the right password, so a wrong one costs the same for every account.
      const second = await secondStep({ store, notify, twoFactor, passkeys }, c, found.user.id, found.credentialsVersion)
      if (second) {
        // The browser keeps its id through the second step, which then finds it new or known.
        devices.set(c)
        return c.json(second, 202)
      }
      const started = await sessions.start(c, found.user, found.credentialsVersion, amrOf({ password: true, code: false }))
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
