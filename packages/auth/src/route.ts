/**
 * The route builder of an application's guarded operations: `auth.route` (a `createRoute`
 * wrapper for `app.openapi`) and `auth.openapi` (which mounts the operation itself, and so can
 * serve a fast query path). The route's middleware is the body guard (413, 415) and then the
 * guard (so the handler's `c.var.user` is typed and non-null), then a declared `limit` (429,
 * counted by `limit-counter.ts` as the library's routes count), in the order of
 * docs/reference/conventions.md#which-error-wins, and the document says what they add: 413 and
 * 415 where the method may carry a body, 429 with a limit, the `security` requirement (the
 * bearer header first), the 401, for a policy `x-policy` and 403, and for a fresh session
 * `x-fresh` (RFC 9470's challenge on the 401). The library's own routes are built by `route-builder.ts`, which
 * documents the guard the same way.
 */
import {
  createRoute,
  type OpenAPIHono,
  type RouteConfig,
  type RouteConfigToEnv,
  type RouteHandler,
  type z,
} from '@hono/zod-openapi'
import type { Context, Env, MiddlewareHandler } from 'hono'
import { jsonBodyGuard, mayCarryBody } from './body.js'
import type { GuardEnv } from './guard.js'
import { guardAnswers, type KeysDocumented } from './guard-answers.js'
import type { AppLimit, LimitCounter } from './limit-counter.js'
import { bodyGuardResponses, internalErrorResponse, rateLimitedResponse } from './openapi.js'
import type { UserRecord } from './store/types.js'
import { sentQuery, validationHook } from './validation.js'

/**
 * A route definition as `createRoute` takes it, plus `auth`, optionally `fresh` (seconds: the
 * session must have proven its holder that recently), `scope` (what an API key needs to call
 * it; without one, keys are refused) and `limit` (docs/reference/limits.md#application-routes).
 * The body guard, the guard and the limit are the route's middleware.
 */
export type GuardedRouteConfig<Name extends string, Scope extends string = never> = Omit<RouteConfig, 'middleware'> & {
  auth: true | Name
  fresh?: number
  scope?: Scope
  /** Counted after the guard, with the numbers of the library's `ip` and `user` keys: 429 past them. */
  limit?: AppLimit
  /** Only `auth.openapi` serves a fast query path: it mounts the route. */
  fastQuery?: never
}

/** What a route's query schema makes of a request: the value its handler's `c.req.valid('query')` reads. */
export type QueryOf<C> = C extends { request: { query: infer Q extends z.ZodType } } ? z.output<Q> : never

/**
 * `auth.openapi`'s config: a guarded route's, and for a route with a query schema, optionally
 * `fastQuery`: the validated query when the URL has a common form, decided without the schema
 * (it must give exactly what the schema gives: test the two against each other), `undefined`
 * to leave the URL to the schema and its 400s.
 */
export type MountedRouteConfig<Name extends string, Scope extends string = never> = Omit<
  GuardedRouteConfig<Name, Scope>,
  'fastQuery'
> & { fastQuery?: (url: string) => unknown }

export type GuardedRoute<C, G> = Omit<C, 'auth' | 'fresh' | 'scope' | 'limit' | 'fastQuery'> & {
  middleware: [G]
  getRoutingPath(): string
}

/** The scope a route config names, or `never`. */
export type ScopeOf<C> = C extends { scope: infer S extends string } ? S : never

/**
 * The route's one middleware: the body guard (413, 415), then the guard, then the limit (429), as
 * one step of Hono's chain, ahead of the validators `app.openapi` adds (400). The guard answers by
 * throwing or by calling `next`, never by returning a response, so handing it to the body guard
 * as its `next` loses nothing.
 */
const guardedBody = (guard: MiddlewareHandler, count: ((c: Context) => Promise<void>) | null): MiddlewareHandler => {
  const bodyGuard = jsonBodyGuard()
  if (!count)
    return function guardedRoute(c, next) {
      return bodyGuard(c, () => guard(c, next) as Promise<void>)
    }
  return function limitedRoute(c, next) {
    const counted = async () => {
      await count(c)
      await next()
    }
    return bodyGuard(c, () => guard(c, counted) as Promise<void>)
  }
}

/** What a config asks of the guard. */
interface Guarding {
  auth: true | string
  fresh?: number | undefined
  scope?: string | undefined
  limit?: AppLimit | undefined
}

/** The 429's description on an application route, which counts no email. */
const LIMITED = 'Too many requests from this client or this user'

/** What the builder is given by `createAuth`. */
export interface Building {
  /** Whether API keys are on: only then does the document speak of them. */
  keysOn: boolean
  /** Counts a route's `limit` as the `/auth` routes' limits are counted. */
  limits: LimitCounter
}

/** The route `createRoute` takes for a guarded config: its middleware, security and documented answers. */
const definitionOf = (
  guard: MiddlewareHandler,
  { auth, fresh, scope, limit }: Guarding,
  config: Omit<RouteConfig, 'middleware'>,
  { keysOn, limits }: Building,
) => {
  // A bad limit (a name of the library's, a key twice) is a TypeError now, when the route is built.
  const count = limit ? limits.app(limit) : null
  const keys: KeysDocumented = !keysOn ? 'none' : scope === undefined ? 'scopeless' : { scope }
  const answers = guardAnswers({ auth, fresh, method: config.method, security: config.security, keys })
  return {
    ...config,
    ...answers.extensions,
    security: answers.security,
    middleware: [guardedBody(guard, count)],
    responses: {
      ...config.responses,
      ...answers.responses,
      ...(mayCarryBody(config.method) ? bodyGuardResponses : {}),
      ...(count ? { 429: { ...rateLimitedResponse, description: LIMITED } } : {}),
      500: internalErrorResponse,
    },
  } as RouteConfig & { path: string; middleware: MiddlewareHandler[] }
}

export const guardedRoute = <G extends MiddlewareHandler, C extends GuardedRouteConfig<string, string>>(
  guard: G,
  /** `fresh` and `scope` are documented here (`x-fresh`, the key's security requirement); the guard enforces them. */
  { auth, fresh, scope, limit, ...config }: C,
  building: Building,
): GuardedRoute<C, G> =>
  createRoute(definitionOf(guard, { auth, fresh, scope, limit }, config, building)) as unknown as GuardedRoute<C, G>

/**
 * `auth.openapi(app, config, handler)`: mounts a guarded operation on `app`, as
 * `app.openapi(auth.route(config), handler)` does, and with `fastQuery` serves the common forms
 * of its query without zod. Policy and scope names are checked as `auth.route` checks them.
 *
 * @example
 * auth.openapi(app, { method: 'get', path: '/todos', auth: true, request: { query: ListQuery }, fastQuery: commonListQuery, responses }, (c) =>
 *   c.json(list(c.var.user.id, c.req.valid('query')), 200))
 */
export type MountRoute<U extends UserRecord, Name extends string, Scope extends string> = <
  C extends MountedRouteConfig<Name, Scope>,
  E extends Env = Env,
>(
  app: OpenAPIHono<E>,
  config: C,
  // Checked here, not on `config`, so that `config` alone infers C (and types an inline `fastQuery`'s `url`).
  handler: FastQueryFits<C> extends true ? MountedHandler<C, MiddlewareHandler<GuardEnv<U, ScopeOf<C>>>, E> : FastQueryMismatch,
) => void

/** Whether a config's `fastQuery`, if any, yields what its query schema yields (and it has one). */
export type FastQueryFits<C> = C extends { fastQuery: infer F }
  ? C extends { request: { query: z.ZodType } }
    ? F extends (url: string) => QueryOf<C> | undefined
      ? true
      : false
    : false
  : true

/** What the compiler names when a `fastQuery` does not fit its route. */
export interface FastQueryMismatch {
  'fastQuery must yield what request.query yields, or undefined, and needs a request.query': never
}

type MountedHandler<C, G, E extends Env> =
  GuardedRoute<C, G> extends infer R extends RouteConfig ? RouteHandler<R, RouteConfigToEnv<R> & E> : never

/**
 * `auth.openapi`: mounts a guarded route on `app` as `app.openapi(auth.route(config), handler)`
 * would, documented the same, and with `fastQuery` validates the query itself: by `fastQuery`
 * when it recognises the URL (no zod), else by the route's schema and the app's validation hook
 * (the library's when the app has none): the same values and the same 400s. Parsing every query
 * parameter out of the URL and an async zod parse were the largest layer the reference server
 * added to a guarded read (docs/PERFORMANCE.md#the-layers-of-a-request).
 */
export const mountedRoute = <E extends Env, G extends MiddlewareHandler, C extends MountedRouteConfig<string, string>>(
  app: OpenAPIHono<E>,
  guard: G,
  config: C,
  building: Building,
  handler: MountedHandler<C, G, E> | FastQueryMismatch,
): void => {
  const { auth, fresh, scope, limit, fastQuery, ...route } = config
  const definition = definitionOf(guard, { auth, fresh, scope, limit }, route, building)
  const query = route.request?.query as z.ZodType | undefined
  if (!fastQuery || !query) {
    app.openapi(createRoute(definition), handler as never)
    return
  }
  const { middleware, hide, ...documented } = definition
  if (!hide) app.openAPIRegistry.registerPath(documented)
  const validateQuery: MiddlewareHandler = async function validateQuery(c, next) {
    let value = fastQuery(c.req.url)
    if (value === undefined) {
      const sent = sentQuery(c)
      const result = await query.safeParseAsync(sent)
      const hook = (app.defaultHook ?? validationHook) as typeof validationHook
      const answer = await hook({ data: sent, ...result, target: 'query' } as Parameters<typeof validationHook>[0], c)
      if (answer instanceof Response) return answer
      if (!result.success) return c.json(result, 400)
      value = result.data
    }
    c.req.addValidatedData('query', value as object)
    await next()
  }
  // Mounted without its query, so zod-openapi adds no validator of its own; documented with it.
  const { query: _documentedOnly, ...request } = route.request ?? {}
  app.openapi({ ...definition, request, hide: true, middleware: [...middleware, validateQuery] }, handler as never)
}
