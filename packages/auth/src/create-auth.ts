/**
 * `createAuth`: validates the options once, wires the dependencies, and returns the
 * `/auth` routes, the guard, and the guarded-route helper.
 */

import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import type { z } from 'zod'
import { accessTokens } from './access-token.js'
import { addCredentialCodes } from './add-credential-code.js'
import { authRoutes } from './auth-routes.js'
import { afterAnswer } from './background.js'
import { refreshCookie, refreshValues } from './cookies.js'
import { rateLimitAddress } from './credentials.js'
import { deviceCore } from './device.js'
import type { NoFields, Policy, SignupExtras } from './domain.js'
import { featureCores, featureSweeps, type ProviderTokens } from './features.js'
import { type GuardEnv, type GuardOptions, type Identity, makeGuard, makeIdentity, type OptionalEnv } from './guard.js'
import { limitCounter } from './limit-counter.js'
import { notifier } from './notify.js'
import { type AuthOptions, resolveOptions } from './options.js'
import { admittedHasher, argon2Hasher, decoyHash } from './password.js'
import { memoryRateLimitStore } from './rate-limit.js'
import { type GuardedRoute, type GuardedRouteConfig, guardedRoute, type MountRoute, mountedRoute, type ScopeOf } from './route.js'
import { secretBox } from './secret-box.js'
import { sessionCore } from './session-core.js'
import type { UserRecord } from './store/types.js'
import { type PruneCounts, sweeper } from './sweep.js'
import { wellKnownRoutes } from './well-known.js'

export interface Auth<U extends UserRecord, Name extends string, Scope extends string = never> {
  /** The auth routes (docs/reference/endpoints.md). Mount them where `cookiePath` says (default `/auth`): `app.route('/auth', auth.routes)`. */
  routes: OpenAPIHono
  /**
   * `GET /.well-known/jwks.json`: the public keys of `signingKeys`, for other services to verify
   * access tokens with (`@latchkey/verify`); an empty set under HS256. Mount it at the root, where
   * verifiers look for it.
   *
   * @example
   * app.route('/', auth.wellKnown)
   */
  wellKnown: OpenAPIHono
  /**
   * Middleware that lets through only a signed-in user (`true`) or one the named policy allows,
   * and with `{ fresh: seconds }` only a session that proved its holder that recently (else 401
   * `reauthentication_required`); with `{ scope }` also an API key holding that scope (else 403
   * `insufficient_scope`). After it, `c.get('user')` is typed and non-null, and
   * `c.get('credential')` says what authenticated the request.
   *
   * @example
   * app.get('/admin/stats', auth.guard('admin'), (c) => c.json({ by: c.get('user').email }))
   * app.post('/billing/card', auth.guard(true, { fresh: 300 }), (c) => c.body(null, 204))
   * app.get('/reports', auth.guard(true, { scope: 'reports:read' }), (c) => c.json({ via: c.get('credential').kind }))
   */
  guard<S extends Scope = never>(auth: true | Name, options?: GuardOptions<S>): MiddlewareHandler<GuardEnv<U, S>>
  /**
   * `createRoute` for a guarded operation: adds the body guard (413, 415) and the guard, the bearer `security`, the 401, for a
   * policy `x-policy` and a 403, for `fresh: seconds` the freshness check and `x-fresh`, for
   * `scope` the API keys that may call it (the scope in the `apiKey` security requirement), and for
   * `limit: { name, by }` a rate limit after the guard and its 429 (docs/reference/limits.md#application-routes).
   *
   * @example
   * app.openapi(auth.route({ method: 'get', path: '/todos', auth: true, scope: 'todos:read', responses }), (c) => c.json(list(c.var.user.id)))
   * app.openapi(auth.route({ method: 'delete', path: '/projects/{id}', auth: 'admin', fresh: 300, responses }), handler)
   * app.openapi(auth.route({ method: 'post', path: '/invites', auth: true, limit: { name: 'invites', by: ['ip', 'user'] }, responses }), handler)
   */
  route<C extends GuardedRouteConfig<Name, Scope>>(config: C): GuardedRoute<C, MiddlewareHandler<GuardEnv<U, ScopeOf<C>>>>
  /**
   * `app.openapi(auth.route(config), handler)` in one call; only it serves a `fastQuery`, the common query without zod.
   *
   * @example
   * auth.openapi(app, { method: 'get', path: '/todos', auth: true, request: { query }, fastQuery, responses }, (c) => c.json(list(c.var.user.id), 200))
   */
  openapi: MountRoute<U, Name, Scope>
  /**
   * Middleware for routes that anyone may call: `c.get('user')` is the signed-in user or `null`
   * (typed so), and it never answers 401 by itself.
   *
   * @example
   * app.get('/', auth.optional(), (c) => c.text(c.get('user') ? `Hello ${c.get('user')?.name}` : 'Hello'))
   */
  optional(): MiddlewareHandler<OptionalEnv<U>>
  /**
   * The user and session an access token names, or `null` when it is invalid, expired or
   * revoked: for code outside a route (a WebSocket upgrade, a job that got a token).
   */
  verify(token: string): Promise<Identity<U> | null>
  /**
   * Resolves once the work that runs after an answer (forgot-password's token and mail) has
   * finished. `close()` awaits it too; this alone leaves the sweep running (tests).
   */
  settled(): Promise<void>
  /**
   * Runs the sweep now (docs/reference/operations.md#the-sweep): deletes every dead row (sessions,
   * spent tokens, challenges and sign-in flows, forgotten devices, API keys expired for 30 days…)
   * in bounded batches and seals again under the first key what an old one sealed. The sweep runs
   * it every `prune.intervalSeconds` anyway; call it yourself when the timer is off.
   */
  prune(): Promise<PruneCounts>
  /**
   * How many sealed values still name another key than the first of `encryptionKeys` (without
   * `encryptionKeys`: than the first signing secret): TOTP keys, and the tokens kept for providers
   * configured with `keepTokens: true`. The sweep seals them again; an old key can be dropped once
   * this is 0 (docs/guide/rotating-keys.md).
   */
  sealedUnderOldKeys(): Promise<number>
  /**
   * The tokens a provider configured with `keepTokens: true` gave at the user's last sign-in or
   * link through it, opened from their sealed column; `null` when none are kept. Never log them.
   */
  providerTokens(userId: string, providerId: string): Promise<ProviderTokens | null>
  /**
   * Stops the sweep and waits for it and for the work after answers. Call it on shutdown, after
   * the server stopped taking requests and before the store closes.
   *
   * @example
   * server.close(async () => { await auth.close(); db.close() })
   */
  close(): Promise<void>
}

/**
 * Creates the authentication component. Throws a `TypeError` naming the option when `secret`
 * is missing or shorter than 32 characters, a `signingKeys` entry is not a private EdDSA or ES256
 * JWK with a unique `kid`, `store` or `sendMail` is missing, or argon2 parameters are below
 * m=19456 KiB, t=2, p=1.
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
export const createAuth = <
  U extends UserRecord,
  Name extends string = never,
  F extends z.ZodRawShape = NoFields,
  Scope extends string = never,
>(
  options: AuthOptions<U, Name, F, Scope>,
): Auth<U & SignupExtras<F>, Name, Scope> => {
  const resolved = resolveOptions(options)
  if (!resolved.encryptionKeys)
    resolved.log(
      'createAuth: no `encryptionKeys`: TOTP keys are sealed under the signing secret, so before dropping an old one wait for auth.sealedUnderOldKeys() to be 0; set encryptionKeys to keep them apart',
    )
  const box = secretBox(resolved.encryptionKeys, resolved.secrets)
  if (options.hasher)
    resolved.log('createAuth: a custom hasher is in use; the argon2id floor (m=19456 KiB, t=2, p=1) is not checked on it')
  const shared = admittedHasher(options.hasher ?? argon2Hasher(resolved.argon2), resolved.hashQueue)
  // A client's share of the hashing queue: its IPv4 address, or its IPv6 /48 (a site's usual
  // allocation; a /64 per request would otherwise be a new client each time).
  const hasher = (c: Context) => shared.of(rateLimitAddress(resolved.clientAddress(c), Math.min(48, resolved.ipv6Prefix)))
  const decoy = decoyHash(shared.own, options.hasher ? undefined : resolved.argon2)
  const tokens = accessTokens({
    secrets: resolved.secrets,
    signingKeys: resolved.signingKeys,
    issuer: resolved.issuer,
    audience: resolved.audience,
    ttlSeconds: resolved.accessTokenTtl,
    now: resolved.now,
    log: resolved.log,
  })
  // Inside, the user is the store's `U`; its extra fields are the guard's to fill (defaults).
  const policies = (options.policies ?? {}) as Record<string, Policy<U>>
  const cookie = refreshCookie(resolved.secureCookies, resolved.cookiePath, resolved.cookieSameSite)
  const after = afterAnswer(resolved.log)
  const notify = notifier({
    sendMail: options.sendMail,
    onEvent: options.onEvent,
    afterAnswer: after,
    clientAddress: resolved.clientAddress,
    now: resolved.now,
    log: resolved.log,
  })
  const sessions = sessionCore({
    store: options.store,
    tokens,
    cookie,
    values: refreshValues(resolved.secrets),
    lifetimes: resolved.lifetimes,
    accessTokenTtl: resolved.accessTokenTtl,
    now: resolved.now,
    clientAddress: resolved.clientAddress,
    maxSessions: resolved.maxSessions,
    notify,
  })
  const cores = featureCores<U>({
    store: options.store,
    options: resolved,
    box,
    notify,
    secure: resolved.secureCookies,
    cookiePath: resolved.cookiePath,
    now: resolved.now,
    log: resolved.log,
  })
  const guard = makeGuard<U>({ sessions, tokens, options: resolved, policies, credentials: cores.credentials })
  const sweep = sweeper({
    store: options.store,
    lifetimes: resolved.lifetimes,
    now: resolved.now,
    log: resolved.log,
    intervalMs: resolved.pruneIntervalMs,
    batchSize: resolved.pruneBatchSize,
    box,
    features: featureSweeps,
  })
  const devices = deviceCore({
    secure: resolved.secureCookies,
    path: resolved.cookiePath,
    store: options.store,
    notify,
    clientAddress: resolved.clientAddress,
    now: resolved.now,
  })
  const identity = makeIdentity<U>({ sessions, tokens, options: resolved })
  // One counter for the /auth routes' limits and the application's (docs/reference/limits.md#application-routes).
  const limits = limitCounter({ store: options.rateLimit?.store ?? memoryRateLimitStore(), notify, options: resolved })
  const routes = authRoutes<U>({
    store: options.store,
    sessions,
    identify: identity.verify,
    hasher,
    decoy,
    limits,
    guard,
    cookie,
    devices,
    notify,
    afterAnswer: after,
    addCredential: addCredentialCodes({ store: options.store, notify, now: resolved.now }),
    ...cores,
    options: resolved,
    policies,
  })
  const building = { keysOn: cores.apiKeys !== null, limits }

  const auth: Auth<U, Name, Scope> = {
    routes,
    wellKnown: wellKnownRoutes(resolved.signingKeys?.map((key) => key.publicJwk) ?? [], resolved.log),
    guard: guard as Auth<U, Name, Scope>['guard'],
    optional: identity.optional,
    verify: identity.verify,
    route: (config) =>
      guardedRoute(guard(config.auth, { fresh: config.fresh, scope: config.scope }), config, building) as ReturnType<
        Auth<U, Name, Scope>['route']
      >,
    openapi: (app, config, handler) =>
      mountedRoute(app, guard(config.auth, { fresh: config.fresh, scope: config.scope }), config, building, handler as never),
    settled: after.settled,
    prune: sweep.run,
    sealedUnderOldKeys: async () => {
      const [secrets, tokens] = await Promise.all([
        options.store.countStaleSeals(box.sealingPrefix),
        options.store.countStaleTokenSeals(box.sealingPrefix),
      ])
      return secrets + tokens
    },
    providerTokens: async (userId, providerId) => (cores.oauth ? cores.oauth.tokens(userId, providerId) : null),
    async close() {
      await sweep.stop()
      await after.settled()
    },
  }
  return auth as unknown as Auth<U & SignupExtras<F>, Name, Scope>
}
