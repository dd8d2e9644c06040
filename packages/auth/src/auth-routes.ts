/**
 * The `/auth` routes (docs/reference/endpoints.md), assembled in one place: their shared middleware (problem documents,
 * `no-store`, the body guard: once, here), the security schemes they document, and what each
 * route is given. Each route names the parts it uses; nothing else reaches them. The core's routes
 * are declared first, then each feature's, in the order of their list (`features.ts`).
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { Policy } from './domain.js'
import { problemErrorHandler } from './errors.js'
import { features } from './features.js'
import { BEARER_SCHEME } from './guard-answers.js'
import { changeEmail } from './lifecycle/change-email.js'
import { changePassword } from './lifecycle/change-password.js'
import { confirmEmail } from './lifecycle/confirm-email.js'
import { deleteAccount } from './lifecycle/delete-account.js'
import { forgotPassword } from './lifecycle/forgot-password.js'
import { resendVerification } from './lifecycle/resend-verification.js'
import { resetPassword } from './lifecycle/reset-password.js'
import { signup } from './lifecycle/signup.js'
import { verifyEmail } from './lifecycle/verify-email.js'
import type { LimitCounter } from './limit-counter.js'
import type { PasswordHasher } from './password.js'
import { routeBuilder } from './route-builder.js'
import type { RouteDeps } from './route-deps.js'
import { listSessions } from './sessions/list-sessions.js'
import { login } from './sessions/login.js'
import { logout } from './sessions/logout.js'
import { me } from './sessions/me.js'
import { refresh } from './sessions/refresh.js'
import { revokeOtherSessions } from './sessions/revoke-other-sessions.js'
import { revokeSession } from './sessions/revoke-session.js'
import { reauth } from './step-up/reauth.js'
import type { UserRecord } from './store/types.js'
import { validationHook } from './validation.js'

/** What `createAuth` hands the routes; the builder is made here. */
export type AuthRoutesDeps<U extends UserRecord> = Omit<RouteDeps<U>, 'route'> & {
  /** The password hasher for the client of request `c`: each client holds at most a quarter of the queue. */
  hasher: (c: Context) => PasswordHasher
  /** Counts the routes' limits; the application's routes share it (`limit-counter.ts`). */
  limits: LimitCounter
  /** The registered policies: the operators' routes ask theirs about the accounts they act on too. */
  policies: Record<string, Policy<U>>
}

export const authRoutes = <U extends UserRecord>({ hasher, limits, policies, ...given }: AuthRoutesDeps<U>): OpenAPIHono => {
  const routes = new OpenAPIHono({ defaultHook: validationHook })
  routes.onError(problemErrorHandler(given.options.log))
  routes.use('*', async function authHeaders(c, next) {
    c.header('Cache-Control', 'no-store')
    c.header('X-Content-Type-Options', 'nosniff')
    await next()
  })
  // The builder installs the body guard (413, 415) before every route, and documents it.
  const route = routeBuilder<U>(routes, {
    guard: given.guard,
    hasher,
    limits,
    options: given.options,
  })
  const deps: RouteDeps<U> = {
    ...given,
    // A route that picks its credential itself (logout) takes no API keys either.
    guard: (auth, options) => given.guard(auth, { keys: 'session', ...options }),
    route,
  }
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
    ctx?.waitUntil(given.afterAnswer.settled())
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A short-lived access token from signup, login or refresh. JWTs follow RFC8725 (JSON Web Token Best Current Practices): HS256 only, the key named by `kid`; `iss`, `aud` and `exp` checked on every request.',
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', 'tokenCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'token',
    description:
      'The access token in a `token` cookie that an application sets itself (the library never does), read when no Authorization header is sent. From another site, an unsafe method with it is refused (403).',
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', 'accessTokenQuery', {
    type: 'apiKey',
    in: 'query',
    name: 'access_token',
    description:
      'The access token as a query parameter, read when neither the header nor the cookie is sent. Never logged; its answers carry no-store and Referrer-Policy: no-referrer. Prefer the header.',
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', 'refreshCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: given.cookie.name,
    description: 'The HttpOnly refresh cookie set by signup, login and refresh (scoped to the auth routes).',
  })
  for (const endpoint of [
    signup,
    login,
    refresh,
    logout,
    me,
    changePassword,
    reauth,
    forgotPassword,
    resetPassword,
    verifyEmail,
    resendVerification,
    listSessions,
    revokeSession,
    revokeOtherSessions,
    changeEmail,
    confirmEmail,
    deleteAccount,
  ])
    endpoint(deps)
  for (const feature of features) feature.routes({ ...deps, app: routes, limits, policies })
  return routes
}
