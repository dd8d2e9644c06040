/** POST /signup: creates an account and signs it in. 409 when the email is taken. */
import { randomUUID } from 'node:crypto'
import { createRoute, z } from '@hono/zod-openapi'
import { AuthError } from '../errors.js'
import { normalizePassword, passwordWeakness } from '../password.js'
import {
  AuthResultSchema,
  codePointString,
  EmailField,
  jsonBody,
  jsonContent,
  NewPasswordField,
  problemResponse,
  rateLimitedResponse,
} from '../schemas.js'
import { INITIAL_CREDENTIALS_VERSION, type UserRecord } from '../store/types.js'
import type { AuthApp, RouteDeps } from './deps.js'

const SignupBody = z
  .object({ name: codePointString(1, 100, 'Name'), email: EmailField, password: NewPasswordField })
  .openapi('SignupRequest')

export const signup = <U extends UserRecord>(
  app: AuthApp,
  { store, sessions, hasher, limits, options }: Pick<RouteDeps<U>, 'store' | 'sessions' | 'hasher' | 'limits' | 'options'>,
) =>
  app.openapi(
    createRoute({
      method: 'post',
      path: '/signup',
      tags: ['auth'],
      summary: 'Create an account',
      middleware: [limits.onBodyEmail('signup')],
      request: { body: jsonBody(SignupBody) },
      responses: {
        201: jsonContent(AuthResultSchema, 'Account created and signed in; the refresh cookie is set'),
        400: problemResponse('Invalid input or a refused password'),
        409: problemResponse('An account with this email exists'),
        429: rateLimitedResponse,
      },
    }),
    async (c) => {
      const { name, email, password } = c.req.valid('json')
      const weakness = await passwordWeakness(password, email)
      if (weakness) throw new AuthError('validation_failed', { errors: [{ path: 'password', message: weakness }] })

      const user = await store.createUser({
        id: randomUUID(),
        name,
        email,
        passwordHash: await hasher.hash(normalizePassword(password)),
        createdAt: options.now(),
      })
      if (!user) throw new AuthError('email_taken', { detail: 'An account with this email already exists.' })
      const result = await sessions.start(c, user, INITIAL_CREDENTIALS_VERSION)
      // Only a password change could move the version, and that needs a session or a reset token.
      if (!result) throw new AuthError('internal', { detail: 'The account was changed while it was being created.' })
      return c.json(result, 201)
    },
  )
