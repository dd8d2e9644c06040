/**
 * The second factor (docs/reference/two-factor.md): set up a TOTP key (pending), enable it with a code (recovery
 * codes shown once; every other session ends), disable it or renew the recovery codes with the
 * password and a code, and finish a challenged login with `POST /two-factor/verify`. Every code
 * is spent atomically: a TOTP step once, a recovery code once.
 */
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { accountEvents } from '../account-events.js'
import { emailUnverified } from '../add-credential-code.js'
import { peekJson } from '../body.js'
import { AuthError } from '../errors.js'
import { CurrentPasswordField, storableString } from '../fields.js'
import type { GuardEnv } from '../guard.js'
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
import { challengeOf } from '../passkeys/ceremony.js'
import { AuthenticationResponseSchema, RequestOptionsSchema } from '../passkeys/schemas.js'
import { type GuardedRouteConfig, guardedRoute } from '../route.js'
import { amrOf } from '../session.js'
import type { UserRecord } from '../store/types.js'
import { CHALLENGE_MAX_FAILURES, type SpentCode } from '../two-factor/factor.js'
import { RECOVERY_CODE_COUNT } from '../two-factor/recovery-codes.js'
import { base32Key, newTotpKey, totpUri } from '../two-factor/totp.js'
import { AuthResultSchema } from '../user-json.js'
import { confirmHolder, passwordOrFresh } from './current-password.js'
import type { AuthApp, RouteDeps } from './deps.js'

const TotpCode = z
  .string()
  .regex(/^[0-9]{6}$/, 'Code must be the 6 digits your authenticator app shows')
  .openapi({ minLength: 6, maxLength: 6, description: 'The current 6-digit code of the authenticator app', example: '123456' })

const EmailCode = z
  .string()
  .regex(/^[0-9]{6}$/, 'Email code must be the 6 digits of the mail that setup sent')
  .openapi({
    minLength: 6,
    maxLength: 6,
    description: 'The 6-digit code mailed by POST /auth/two-factor/setup (10 minutes; the fifth wrong one kills it)',
    example: '654321',
  })

export const AnyCode = z
  .string()
  .max(32)
  .regex(
    /^(?:[0-9]{6}|[0-9A-Za-z]{4}[- ]?[0-9A-Za-z]{4}[- ]?[0-9A-Za-z]{4})$/,
    'Code must be 6 digits or a recovery code (xxxx-xxxx-xxxx)',
  )
  .openapi({ description: 'A 6-digit code of the authenticator app, or an unused recovery code', example: '123456' })

const RecoveryCodesSchema = z
  .object({
    recoveryCodes: z.array(z.string().max(14)).length(RECOVERY_CODE_COUNT).openapi({
      minItems: RECOVERY_CODE_COUNT,
      maxItems: RECOVERY_CODE_COUNT,
      description: 'Single-use codes that stand in for the app once each. Shown only now.',
    }),
  })
  .openapi('RecoveryCodes')

const SetupSchema = z
  .object({
    secret: z.string().max(64).openapi({ description: 'The TOTP key, base32 (RFC 4648) without padding' }),
    uri: z.string().max(512).openapi({ description: 'The `otpauth://totp/…` URI, for a QR code (SHA-1, 6 digits, 30 s)' }),
  })
  .openapi('TwoFactorSetup')

const StatusSchema = z
  .object({
    enabled: z.boolean(),
    pending: z.boolean().openapi({ description: 'Set up and waiting for the first code (POST /two-factor/enable)' }),
    recoveryCodesLeft: z.int().min(0).max(RECOVERY_CODE_COUNT).openapi({ format: 'int32' }),
  })
  .openapi('TwoFactorStatus')

export const ChallengeSchema = z
  .object({
    twoFactorRequired: z.literal(true),
    challenge: z.string().max(64).openapi({ description: 'Single use; send it with a code to POST /auth/two-factor/verify' }),
    expiresIn: z.int().min(1).max(3600).openapi({ format: 'int32', description: 'Seconds the challenge lives', example: 300 }),
    methods: z
      .array(z.enum(['totp', 'recovery', 'passkey']))
      .max(3)
      .openapi({ description: 'What may answer the challenge: `passkey` when the account has one' }),
    passkeyOptions: RequestOptionsSchema.optional().openapi({
      description: 'With `passkey`: request options listing the account’s passkeys, for an answer `{ challenge, passkey }`',
    }),
  })
  .openapi('TwoFactorChallenge')

export const wrongCode = () =>
  new AuthError('wrong_code', {
    detail: 'The code is wrong or was already used.',
    errors: [{ path: 'code', code: 'wrong_code', message: 'Code is wrong or was already used' }],
  })
const alreadyEnabled = () =>
  new AuthError('two_factor_enabled', { detail: 'Two-factor authentication is already on; disable it first.' })
const notEnabled = (detail = 'Two-factor authentication is not on.') => new AuthError('two_factor_not_enabled', { detail })
const invalidChallenge = () =>
  new AuthError('invalid_challenge', {
    detail: 'The challenge is unknown, used or expired; sign in again.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  })

type Deps<U extends UserRecord> = Pick<
  RouteDeps<U>,
  | 'store'
  | 'hasher'
  | 'limits'
  | 'notify'
  | 'options'
  | 'guard'
  | 'sessions'
  | 'twoFactor'
  | 'addCredential'
  | 'devices'
  | 'passkeys'
>

export const twoFactorRoutes = <U extends UserRecord>(app: AuthApp, deps: Deps<U>) => {
  const { store, limits, notify, options, guard, sessions, twoFactor, addCredential, devices } = deps
  const guarded = <C extends GuardedRouteConfig<never>>(config: C, endpoint?: string) =>
    guardedRoute(guard(true), config, [
      // The password or a fresh session: where `x-fresh` is documented, the route takes either.
      ...(config.fresh === undefined ? [] : [passwordOrFresh(options)]),
      ...(endpoint ? [limits.perUser(endpoint)] : []),
    ])

  app.openapi(
    guarded({
      auth: true,
      tags: ['two-factor'],
      method: 'get',
      path: '/two-factor',
      operationId: 'getTwoFactor',
      summary: 'Whether two-factor authentication is on, and how many recovery codes are left',
      responses: { 200: jsonContent(StatusSchema, 'The state of the second factor') },
    }),
    async (c) => {
      const factor = await store.findTwoFactor(c.var.user.id)
      return c.json(
        {
          enabled: Boolean(factor?.enabledAt),
          pending: Boolean(factor && !factor.enabledAt),
          recoveryCodesLeft: factor?.recoveryCodesLeft ?? 0,
        },
        200,
      )
    },
  )

  app.openapi(
    guarded(
      {
        auth: true,
        tags: ['two-factor'],
        method: 'post',
        path: '/two-factor/setup',
        fresh: options.freshAge,
        operationId: 'setUpTwoFactor',
        summary:
          'Create a TOTP key (pending until enabled with a code) and mail a 6-digit code to the verified address; a new setup replaces a pending one and its code',
        request: { body: jsonBody(z.object({ currentPassword: CurrentPasswordField }).openapi('TwoFactorSetupRequest')) },
        responses: {
          200: jsonContent(SetupSchema, 'The key, to enter or scan into an authenticator app; a code is on its way by mail'),
          400: problemResponse('Invalid input or a wrong current password'),
          403: problemResponse('The email address is not verified (`email-unverified`); nothing changed'),
          409: problemResponse('Two-factor authentication is already on'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
          503: overloadedResponse,
        },
      },
      'two-factor-setup',
    ),
    async (c) => {
      const { currentPassword } = c.req.valid('json')
      const { user } = c.var
      // A factor outlives a reset: only the owner of a verified mailbox may add one.
      if (!user.raw.emailVerified) throw emailUnverified()
      await confirmHolder(deps, c, currentPassword)
      const key = newTotpKey()
      if (!(await store.setPendingTwoFactor(user.id, await twoFactor.box.seal(key, user.id), options.now())))
        throw alreadyEnabled()
      await addCredential.issue(user.raw, 'two-factor')
      return c.json({ secret: base32Key(key), uri: totpUri(options.twoFactorIssuer, user.email, key) }, 200)
    },
  )

  app.openapi(
    guarded(
      {
        auth: true,
        tags: ['two-factor'],
        method: 'post',
        path: '/two-factor/enable',
        operationId: 'enableTwoFactor',
        summary:
          'Turn the pending key on with a code from the app and the code mailed by setup; every other session is signed out',
        request: {
          body: jsonBody(z.object({ code: TotpCode, emailCode: EmailCode }).openapi('TwoFactorEnableRequest')),
        },
        responses: {
          200: jsonContent(RecoveryCodesSchema, 'On; the recovery codes are shown this once'),
          400: problemResponse(
            'Invalid input, a wrong or used code, or a wrong, used or expired email code (the fifth wrong one kills it)',
          ),
          409: problemResponse('Already on, or not set up'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
        },
      },
      'two-factor-enable',
    ),
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

  /** The password (or a fresh session), then an enabled factor, then the code spent: the common start of disable and renew. */
  const passwordThenCode = async (c: Context<GuardEnv<U>>, password: string | undefined, code: string, recovery: boolean) => {
    const userId = c.var.user.id
    await confirmHolder(deps, c, password)
    const factor = await store.findTwoFactor(userId)
    if (!factor?.enabledAt) throw notEnabled()
    const spent = await twoFactor.spend(userId, factor, code, recovery)
    if (!spent) {
      notify.event(c, { type: 'two_factor.failed', userId })
      throw wrongCode()
    }
    return spent
  }

  app.openapi(
    guarded(
      {
        auth: true,
        tags: ['two-factor'],
        method: 'post',
        path: '/two-factor/disable',
        fresh: options.freshAge,
        operationId: 'disableTwoFactor',
        summary: 'Turn two-factor authentication off with the password and a code or a recovery code',
        request: {
          body: jsonBody(z.object({ currentPassword: CurrentPasswordField, code: AnyCode }).openapi('TwoFactorDisableRequest')),
        },
        responses: {
          204: { description: 'Off; the key and the recovery codes are deleted' },
          400: problemResponse('Invalid input, a wrong current password, or a wrong or used code'),
          409: problemResponse('Two-factor authentication is not on'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
          503: overloadedResponse,
        },
      },
      'two-factor-disable',
    ),
    async (c) => {
      const { currentPassword, code } = c.req.valid('json')
      const { user } = c.var
      const spent = await passwordThenCode(c, currentPassword, code, true)
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

  app.openapi(
    guarded(
      {
        auth: true,
        tags: ['two-factor'],
        method: 'post',
        path: '/two-factor/recovery-codes',
        fresh: options.freshAge,
        operationId: 'renewRecoveryCodes',
        summary: 'Replace the recovery codes with a fresh set (the password and a code from the app)',
        request: {
          body: jsonBody(z.object({ currentPassword: CurrentPasswordField, code: TotpCode }).openapi('RecoveryCodesRequest')),
        },
        responses: {
          200: jsonContent(RecoveryCodesSchema, 'The new set, shown this once; the old set no longer works'),
          400: problemResponse('Invalid input, a wrong current password, or a wrong or used code'),
          409: problemResponse('Two-factor authentication is not on'),
          ...bodyGuardResponses,
          429: rateLimitedResponse,
          503: overloadedResponse,
        },
      },
      'two-factor-recovery-codes',
    ),
    async (c) => {
      const { currentPassword, code } = c.req.valid('json')
      const { user } = c.var
      await passwordThenCode(c, currentPassword, code, false)
      const recovery = twoFactor.recoveryCodes(user.id)
      if (!(await store.replaceRecoveryCodes(user.id, recovery.hashes))) throw notEnabled()
      return c.json({ recoveryCodes: recovery.codes }, 200)
    },
  )

  const VerifyBody = z
    .object({
      challenge: storableString().min(1).max(1024),
      code: AnyCode.optional(),
      passkey: AuthenticationResponseSchema.optional().openapi({
        description: 'An assertion answering the challenge’s `passkeyOptions`, instead of a code',
      }),
    })
    .refine((body) => (body.code === undefined) !== (body.passkey === undefined), {
      message: 'Send either a code or a passkey',
      path: ['code'],
    })
    .openapi('TwoFactorVerifyRequest')

  return app.openapi(
    createRoute({
      method: 'post',
      path: '/two-factor/verify',
      operationId: 'verifyTwoFactor',
      security: [],
      tags: ['two-factor'],
      summary: 'Finish a sign-in that answered 202 with a code from the app, a recovery code or a passkey',
      // Per address, and per the account whose password step made the challenge.
      middleware: [
        limits.perAccount('two-factor-verify', async (c) => {
          const body = await peekJson(c)
          const challenge = typeof body === 'object' && body !== null ? (body as { challenge?: unknown }).challenge : undefined
          if (typeof challenge !== 'string' || challenge.length > 1024) return null
          return (await store.findChallenge(tokenHash(challenge), options.now()))?.userId ?? null
        }),
      ],
      request: { body: jsonBody(VerifyBody) },
      responses: {
        200: jsonContent(AuthResultSchema, 'Signed in; the refresh cookie and the device cookie are set'),
        400: problemResponse('Invalid input'),
        401: unauthorizedResponse('A wrong code (the fifth kills the challenge), or an unknown, used or expired challenge'),
        ...bodyGuardResponses,
        429: rateLimitedResponse,
        500: internalErrorResponse,
      },
    }),
    async (c) => {
      const { challenge, code, passkey } = c.req.valid('json')
      const hash = tokenHash(challenge)
      // One attempt at a time: concurrent attempts on one challenge find it claimed.
      const claimed = await store.claimChallenge(hash, options.now(), CHALLENGE_MAX_FAILURES)
      if (!claimed) throw invalidChallenge()
      const { userId, credentialsVersion, firstFactor } = claimed
      const factor = await store.findTwoFactor(userId)
      let spent: SpentCode | 'passkey' | null = null
      if (factor?.enabledAt && code !== undefined) spent = await twoFactor.spend(userId, factor, code, true)
      // After a passkey first step only a code is a second factor (docs/reference/passkeys.md#a-passkey-as-the-second-step).
      else if (factor?.enabledAt && passkey && deps.passkeys && firstFactor !== 'hwk') {
        // The assertion must answer this challenge's own WebAuthn challenge, by one of the account's passkeys.
        const expected = challengeOf(passkey.response.clientDataJSON)
        const outcome = expected
          ? await deps.passkeys.verifyAssertion(passkey, 'two-factor', { challenge: expected, userId, boundTo: hash })
          : null
        if (outcome?.ok === false && outcome.regressed)
          notify.event(c, { type: 'passkey.counter_regressed', userId, passkeyId: outcome.regressed.id })
        if (outcome?.ok) spent = 'passkey'
      }
      if (!spent) {
        await store.failChallenge(hash)
        notify.event(c, { type: 'two_factor.failed', userId })
        throw new AuthError('two_factor_failed', {
          detail: 'The code is wrong or was already used.',
          headers: { 'WWW-Authenticate': 'Bearer' },
        })
      }
      const found = await store.findUserById(userId)
      // The first step's version: a reset or a change since then opens no session.
      const started =
        found &&
        (await sessions.start(c, found.user, credentialsVersion, amrOf(firstFactor, spent === 'passkey' ? 'hwk' : 'otp')))
      if (!started) throw invalidChallenge()
      if (spent === 'recovery') {
        notify.event(c, { type: 'recovery_code.used', userId })
        notify.mail({ kind: 'recovery-code-used', to: found.user.email, usedFor: 'sign-in' })
      }
      notify.event(c, { type: 'login.succeeded', userId, sessionId: started.sessionId })
      devices.set(c)
      await devices.signedIn(c, found.user, started.sessionId, { notice: true })
      return c.json(started.body, 200)
    },
  )
}
