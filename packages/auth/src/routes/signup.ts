/** POST /signup: creates an account and signs it in. 409 when the email is taken. */
import { randomUUID } from 'node:crypto'
import { createRoute, z } from '@hono/zod-openapi'
import { AuthError } from '../errors.js'
import { type AuthApp, type Kit, limitOnBodyEmail, startSession } from '../kit.js'
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
import { INITIAL_CREDENTIALS_VERSION } from '../store/types.js'

const SignupBody = z
  .object({ name: codePointString(1, 100, 'Name'), email: EmailField, password: NewPasswordField })
  .openapi('SignupRequest')

export const signup = (app: AuthApp, kit: Kit) =>
  app.openapi(
    createRoute({
      method: 'post',
      path: '/signup',
      tags: ['auth'],
      summary: 'Create an account',
      middleware: [limitOnBodyEmail(kit, 'signup')],
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

      const user = await kit.store.createUser({
        id: randomUUID(),
        name,
        email,
        passwordHash: await kit.hasher.hash(normalizePassword(password)),
        createdAt: kit.options.now(),
      })
      if (!user) throw new AuthError('email_taken', { detail: 'An account with this email already exists.' })
      const result = await startSession(kit, c, user, INITIAL_CREDENTIALS_VERSION)
      // Only a password change could move the version, and that needs a session or a reset token.
      if (!result) throw new AuthError('internal', { detail: 'The account was changed while it was being created.' })
      return c.json(result, 201)
    },
  )
