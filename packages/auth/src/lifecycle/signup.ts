/** POST /signup: creates an account and signs it in. 409 when the email is taken. */
import { z } from '@hono/zod-openapi'
import { whileCheckingBreach } from '../breached-check.js'
import { mailEmailToken } from '../email-tokens.js'
import { AuthError, emailTaken } from '../errors.js'
import { codePointString, EmailField, isStorableText, NewPasswordField, UNSTORABLE_TEXT } from '../fields.js'
import { limitBy } from '../limits.js'
import { jsonBody, jsonContent, problemResponse, settingCookies } from '../openapi.js'
import { EMAIL_PASSWORD, isEmailPassword, normalizePassword } from '../password.js'
import type { RouteDeps } from '../route-deps.js'
import { amrOf } from '../session-proof.js'
import { INITIAL_CREDENTIALS_VERSION, type UserRecord } from '../store/types.js'
import { AuthResultSchema } from '../user-json.js'
import { fieldCode } from '../validation.js'

const BASE_FIELDS = { name: codePointString(1, 100, 'Name'), email: EmailField, password: NewPasswordField }

/** The signup body: the library's fields and the application's (`signupFields`), validated together. */
const signupBody = (extra: z.ZodObject | null) =>
  z
    .object({ ...BASE_FIELDS, ...(extra?.shape ?? {}) })
    // Beside the other fields' errors, once the password itself is acceptable.
    .refine((body) => typeof body?.email !== 'string' || !isEmailPassword(body.password, body.email), {
      path: ['password'],
      message: EMAIL_PASSWORD,
      params: fieldCode('password_is_email'),
      when: (payload) => !payload.issues.some((issue) => issue.path?.[0] === 'password' || issue.path?.length === 0),
    })
    // The application's fields hold text too: what no store can hold is refused, as everywhere (docs/reference/operations.md#unstorable-text).
    .superRefine((body, ctx) => {
      for (const key of Object.keys(extra?.shape ?? {}))
        for (const path of unstorablePaths(body?.[key as keyof typeof body], [key]))
          ctx.addIssue({ code: 'custom', path, message: UNSTORABLE_TEXT, params: fieldCode('unsupported_text') })
    })
    .openapi('SignupRequest')

/** Paths below `path` of strings in `value` that no store can hold. */
const unstorablePaths = (value: unknown, path: PropertyKey[]): PropertyKey[][] => {
  if (typeof value === 'string') return isStorableText(value) ? [] : [path]
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(isStorableText(key) ? [] : [[...path, key]]),
    ...unstorablePaths(inner, [...path, key]),
  ])
}

export const signup = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'sessions' | 'options' | 'notify' | 'devices'>,
) => {
  const { route, store, sessions, options, notify, devices } = deps
  const extraKeys = Object.keys(options.signupFields?.shape ?? {})
  const SignupBody = signupBody(options.signupFields)
  route.public(
    {
      method: 'post',
      path: '/signup',
      operationId: 'signup',
      tags: ['auth'],
      summary: 'Create an account',
      request: { body: jsonBody(SignupBody) },
      responses: {
        201: settingCookies(
          jsonContent(AuthResultSchema, 'Account created and signed in; the refresh cookie and the device cookie are set'),
          'signedIn',
        ),
        400: problemResponse('Invalid input or a refused password'),
        409: problemResponse('An account with this email exists'),
      },
    },
    { peek: { email: z.string() }, limit: { name: 'signup', keys: [limitBy.ip, limitBy.email()] }, hashes: true },
    async (c) => {
      const body = c.req.valid('json') as { name: string; email: string; password: string } & Record<string, unknown>
      const { name, email, password } = body
      // Before the email is looked at: a breached password gets the same 400 whether or not the
      // address has an account, after the same outside request (docs/guide/account-protection.md#breached-passwords).
      // The hash is computed while the range service answers.
      const passwordHash = await whileCheckingBreach(deps, c, { password, field: 'password', endpoint: 'signup' }, () =>
        c.var.hasher.hash(normalizePassword(password)),
      )
      const profile = extraKeys.length > 0 ? Object.fromEntries(extraKeys.map((key) => [key, body[key]])) : null
      const user = await store.createUser({
        id: crypto.randomUUID(),
        name,
        email,
        passwordHash,
        createdAt: options.now(),
        ...(profile ? { profile } : {}),
      })
      if (!user) throw emailTaken()
      const started = await sessions.start(c, user, INITIAL_CREDENTIALS_VERSION, amrOf('pwd'))
      // Only a password change could move the version, and that needs a session or a reset token.
      if (!started) throw new AuthError('internal', { detail: 'The account was changed while it was being created.' })
      notify.event(c, { type: 'signup', userId: user.id, sessionId: started.sessionId })
      // The browser that signed up is the account's first known device: no notice for it.
      devices.set(c)
      await devices.signedIn(c, user, started.sessionId, { notice: false })
      await mailEmailToken(deps, 'verify-email', user.id, user.email)
      return c.json(started.body, 201)
    },
  )
}
