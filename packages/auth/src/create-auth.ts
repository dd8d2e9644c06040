/**
 * `createAuth`: validates the options once, wires the dependencies, and returns the eight
 * `/auth` routes, the guard, and the guarded-route helper.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import { accessTokens } from './access-token.js'
import { refreshCookie } from './cookies.js'
import { clientIp, rateLimitAddress } from './credentials.js'
import { errorSummary, problemErrorHandler } from './errors.js'
import { type GuardEnv, makeGuard } from './guard.js'
import { jsonBodyGuard } from './http.js'
import type { Kit } from './kit.js'
import { type AuthOptions, type Policy, resolveOptions } from './options.js'
import { admittedHasher, argon2Hasher, decoyHash } from './password.js'
import { memoryRateLimitStore, rateLimiter } from './rate-limit.js'
import { BEARER_SCHEME, type GuardedRoute, type GuardedRouteConfig, guardedRoute } from './route.js'
import { changePassword } from './routes/change-password.js'
import { forgotPassword } from './routes/forgot-password.js'
import { login } from './routes/login.js'
import { logout } from './routes/logout.js'
import { me } from './routes/me.js'
import { refresh } from './routes/refresh.js'
import { resetPassword } from './routes/reset-password.js'
import { signup } from './routes/signup.js'
import { validationHook } from './schemas.js'
import type { UserRecord } from './store/types.js'

export interface Auth<U extends UserRecord, Name extends string> {
  /** The eight auth routes. Mount them where `cookiePath` says (default `/auth`): `app.route('/auth', auth.routes)`. */
  routes: OpenAPIHono
  /**
   * Middleware that lets through only a signed-in user (`true`) or one the named policy allows.
   * After it, `c.get('user')` is typed and non-null.
   *
   * @example
   * app.get('/admin/stats', auth.guard('admin'), (c) => c.json({ by: c.get('user').email }))
   */
  guard(auth: true | Name): MiddlewareHandler<GuardEnv<U>>
  /**
   * `createRoute` for a guarded operation: adds the guard, the bearer `security`, the 401, and
   * for a policy `x-policy` and a 403.
   *
   * @example
   * app.openapi(auth.route({ method: 'get', path: '/todos', auth: true, responses }), (c) => c.json(list(c.var.user.id)))
   */
  route<C extends GuardedRouteConfig<Name>>(config: C): GuardedRoute<C, MiddlewareHandler<GuardEnv<U>>>
  /**
   * Resolves once the work that runs after an answer (forgot-password's token and mail) has
   * finished. Await it on shutdown, after the server stopped taking requests and before the
   * store closes.
   *
   * @example
   * server.close(async () => { await auth.settled(); db.close() })
   */
  settled(): Promise<void>
}

/**
 * Creates the authentication component. Throws a `TypeError` naming the option when `secret`
 * is missing or shorter than 32 characters, `store` or `sendMail` is missing, or argon2
 * parameters are below m=19456 KiB, t=2, p=1.
 *
 * @example
 * const auth = createAuth({
 *   secret: process.env.AUTH_SECRET!,
 *   store: sqliteStore(db),
 *   sendMail: ({ to, token }) => mailer.send(to, `${PUBLIC_URL}/reset-password?token=${token}`),
 *   policies: { admin: (user) => user.raw.role === 'admin' },
 * })
 * app.route('/auth', auth.routes)
 */
export const createAuth = <U extends UserRecord, Name extends string = never>(options: AuthOptions<U, Name>): Auth<U, Name> => {
  const resolved = resolveOptions(options)
  if (options.hasher)
    resolved.log('createAuth: a custom hasher is in use; the argon2id floor (m=19456 KiB, t=2, p=1) is not checked on it')
  const hasher = admittedHasher(options.hasher ?? argon2Hasher(resolved.argon2), resolved.hashQueue)
  const decoy = decoyHash(hasher)
  decoy.catch((err: unknown) => resolved.log(`decoy hash failed: ${errorSummary(err)}`))
  const tokens = accessTokens({
    secret: options.secret,
    issuer: resolved.issuer,
    audience: resolved.audience,
    ttlSeconds: resolved.accessTokenTtl,
    now: resolved.now,
  })
  const policies: Record<string, Policy<U>> = options.policies ?? {}
  const guard = makeGuard<U>({ store: options.store, tokens, options: resolved, policies })
  const cookie = refreshCookie(resolved.secureCookies, resolved.cookiePath)
  const pending = new Set<Promise<void>>()
  const background = (what: string, task: () => Promise<void>) => {
    const run: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(task)
      .catch((err: unknown) => resolved.log(`${what}: work after the answer failed: ${errorSummary(err)}`))
      .finally(() => pending.delete(run))
    pending.add(run)
  }
  const kit: Kit<U> = {
    store: options.store,
    hasher,
    decoy,
    tokens,
    options: resolved,
    limit: rateLimiter({ store: options.rateLimit?.store ?? memoryRateLimitStore(), now: resolved.now }),
    ipOf: (c) => rateLimitAddress(clientIp(c, resolved.trustProxy), resolved.ipv6Prefix),
    guard,
    cookie,
    sendMail: options.sendMail,
    background,
  }

  const routes = new OpenAPIHono({ defaultHook: validationHook })
  routes.onError(problemErrorHandler(resolved.log))
  routes.use('*', async function authHeaders(c, next) {
    c.header('Cache-Control', 'no-store')
    c.header('X-Content-Type-Options', 'nosniff')
    await next()
  })
  routes.use('*', jsonBodyGuard())
  routes.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  })
  routes.openAPIRegistry.registerComponent('securitySchemes', 'refreshCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: cookie.name,
  })
  const anyKit = kit as unknown as Kit
  for (const mount of [signup, login, refresh, logout, me, changePassword, forgotPassword, resetPassword]) mount(routes, anyKit)

  return {
    routes,
    guard,
    route: (config) => guardedRoute(guard(config.auth), config),
    async settled() {
      while (pending.size > 0) await Promise.allSettled(pending)
    },
  }
}
