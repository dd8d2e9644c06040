/**
 * The `/auth` routes (docs/reference/endpoints.md), assembled in one place: their shared middleware (problem documents,
 * `no-store`, the body guard: once, here), the security schemes they document, and what each
 * route is given. Each route names the parts it uses; nothing else reaches them.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { jsonBodyGuard } from '../body.js'
import { emailSignInRoutes } from '../email-sign-in/index.js'
import { problemErrorHandler } from '../errors.js'
import { passkeyRoutes } from '../passkeys/routes/index.js'
import { BEARER_SCHEME } from '../route.js'
import type { UserRecord } from '../store/types.js'
import { validationHook } from '../validation.js'
import { changeEmail } from './change-email.js'
import { changePassword } from './change-password.js'
import { deleteAccount } from './delete-account.js'
import type { RouteDeps } from './deps.js'
import { forgotPassword } from './forgot-password.js'
import { login } from './login.js'
import { logout } from './logout.js'
import { me } from './me.js'
import { reauth } from './reauth.js'
import { refresh } from './refresh.js'
import { resetPassword } from './reset-password.js'
import { sessionRoutes } from './sessions.js'
import { signup } from './signup.js'
import { twoFactorRoutes } from './two-factor.js'
import { verifyEmail } from './verify-email.js'

export const authRoutes = <U extends UserRecord>(deps: RouteDeps<U>): OpenAPIHono => {
  const routes = new OpenAPIHono({ defaultHook: validationHook })
  routes.onError(problemErrorHandler(deps.options.log))
  routes.use('*', async function authHeaders(c, next) {
    c.header('Cache-Control', 'no-store')
    c.header('X-Content-Type-Options', 'nosniff')
    await next()
  })
  routes.use('*', jsonBodyGuard())
  // Where the runtime ends a request's work with its answer (Workers), the mails and events that
  // follow the answer are handed to its `waitUntil`, or they may never run.
  routes.use('*', async function workAfterAnswer(c, next) {
    await next()
    let ctx: { waitUntil(promise: Promise<unknown>): void } | undefined
    try {
      ctx = c.executionCtx
    } catch {
      // No ExecutionContext (Node, Bun, Deno): the process outlives the answer.
    }
    ctx?.waitUntil(deps.afterAnswer.settled())
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A short-lived access token from signup, login or refresh. JWTs follow RFC8725 (JSON Web Token Best Current Practices): HS256 only, the key named by `kid`; `iss`, `aud` and `exp` checked on every request.',
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', 'refreshCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: deps.cookie.name,
    description: 'The HttpOnly refresh cookie set by signup, login and refresh (scoped to the auth routes).',
  })
  signup(routes, deps)
  login(routes, deps)
  refresh(routes, deps)
  logout(routes, deps)
  me(routes, deps)
  changePassword(routes, deps)
  reauth(routes, deps)
  forgotPassword(routes, deps)
  resetPassword(routes, deps)
  verifyEmail(routes, deps)
  sessionRoutes(routes, deps)
  changeEmail(routes, deps)
  deleteAccount(routes, deps)
  twoFactorRoutes(routes, deps)
  emailSignInRoutes(routes, deps)
  if (deps.passkeys) passkeyRoutes(routes, { ...deps, passkeys: deps.passkeys })
  return routes
}
