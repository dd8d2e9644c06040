/**
 * The route builder of an application's guarded operations: `auth.route` (a `createRoute`
 * wrapper for `app.openapi`) and `auth.openapi` (which mounts the operation itself, and so can
 * serve a fast query path). The route's middleware is the body guard (413, 415) and then the
 * guard (so the handler's `c.var.user` is typed and non-null), in the order of
 * docs/reference/conventions.md#which-error-wins, and the document says what they add: 413 and
 * 415 where the method may carry a body, the `security` requirement (the bearer header first),
 * the 401, for a policy `x-policy` and 403, and for a fresh session `x-fresh` (RFC 9470's
 * challenge on the 401). The library's own routes are built by `route-builder.ts`, which
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
import { bodyGuardResponses, internalErrorResponse, problemResponse, unauthorizedResponse } from './openapi.js'
import type { UserRecord } from './store/types.js'
import { validationHook } from './validation.js'

/** Name of the HTTP bearer security scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearerAuth'
/** Name of the API keys' bearer scheme (docs/guide/api-keys.md); an operation lists the scope it needs. */
export const API_KEY_SCHEME = 'apiKey'

/**
 * Where a guarded operation reads the access token, as alternatives in the order the guard
 * looks (docs/reference/credentials.md#where-the-access-token-is-read): the bearer header, then the
 * `token` cookie an app may set, then the `access_token` query parameter.
 */
export const ACCESS_TOKEN_SECURITY: NonNullable<RouteConfig['security']> = [
  { [BEARER_SCHEME]: [] },
  { tokenCookie: [] },
  { accessTokenQuery: [] },
]

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * A route definition as `createRoute` takes it, plus `auth`, optionally `fresh` (seconds: the
 * session must have proven its holder that recently) and `scope` (what an API key needs to call
 * it; without one, keys are refused). The body guard and the guard are the route's middleware.
 */
export type GuardedRouteConfig<Name extends string, Scope extends string = never> = Omit<RouteConfig, 'middleware'> & {
  auth: true | Name
  fresh?: number
  scope?: Scope
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

export type GuardedRoute<C, G> = Omit<C, 'auth' | 'fresh' | 'scope' | 'fastQuery'> & {
  middleware: [G]
  getRoutingPath(): string
}

/** The scope a route config names, or `never`. */
export type ScopeOf<C> = C extends { scope: infer S extends string } ? S : never

/**
 * Which API keys an operation takes, as its document says: those holding its scope; none because
 * it needs a session (`session`) or declares no scope (`scopeless`); any live one (`any`); or
 * nothing is said (`none`: API keys are off).
 */
export type KeysDocumented = { scope: string } | 'session' | 'scopeless' | 'any' | 'none'

/**
 * What a guard adds to an operation's document: `x-policy`, `x-fresh`, the bearer requirement,
 * the 401, and the 403 of a policy or of a cookie sent from another site on an unsafe method,
 * joined with the operation's own 403 (`forbidden`), if any.
 */
export const guardAnswers = (
  {
    auth,
    fresh,
    method,
    security,
    keys = 'none',
  }: {
    auth: true | string
    fresh?: number | undefined
    method: string
    security?: RouteConfig['security']
    /** Documented only where API keys are on. */
    keys?: KeysDocumented
  },
  forbidden?: string,
): {
  extensions: Record<string, unknown>
  security: NonNullable<RouteConfig['security']>
  responses: RouteConfig['responses']
} => {
  // An app may send the access token as the `token` cookie: on an unsafe method, from another
  // site, that is 403 (docs/reference/credentials.md#cross-site-requests), as is a policy's refusal.
  const scope = typeof keys === 'object' && fresh === undefined ? keys.scope : undefined
  const refusals = [
    ...(auth === true ? [] : [`the "${auth}" policy refused the caller`]),
    ...(scope !== undefined ? [`an API key without the "${scope}" scope (\`insufficient-scope\`)`] : []),
    ...(keys === 'session' || (keys !== 'none' && keys !== 'any' && fresh !== undefined)
      ? ['an API key: this needs a signed-in session (`session-required`)']
      : keys === 'scopeless'
        ? ['an API key: this route takes none (`insufficient-scope`)']
        : []),
    ...(UNSAFE.has(method.toUpperCase()) ? ['the `token` cookie was sent from another site'] : []),
    ...(forbidden ? [forbidden.charAt(0).toLowerCase() + forbidden.slice(1)] : []),
  ]
  return {
    extensions: { ...(auth === true ? {} : { 'x-policy': auth }), ...(fresh === undefined ? {} : { 'x-fresh': fresh }) },
    security: [
      ...(security ?? []),
      ...ACCESS_TOKEN_SECURITY,
      ...(scope !== undefined ? [{ [API_KEY_SCHEME]: [scope] }] : keys === 'any' ? [{ [API_KEY_SCHEME]: [] }] : []),
    ],
    responses: {
      401: unauthorizedResponse(
        fresh === undefined
          ? 'No valid access token'
          : `No valid access token, or (\`reauthentication-required\`, with \`maxAge\`) a session that last proved its holder more than ${fresh} seconds ago`,
      ),
      ...(refusals.length > 0 ? { 403: problemResponse(`Forbidden: ${refusals.join('; or ')}`) } : {}),
    },
  }
}

/**
 * The route's one middleware: the body guard (413, 415), then the guard, as one step of Hono's
 * chain. The guard answers by throwing or by calling `next`, never by returning a response, so
 * handing it to the body guard as its `next` loses nothing.
 */
const guardedBody = (guard: MiddlewareHandler): MiddlewareHandler => {
  const bodyGuard = jsonBodyGuard()
  return function guardedRoute(c, next) {
    return bodyGuard(c, () => guard(c, next) as Promise<void>)
  }
}

/** What a config asks of the guard. */
interface Guarding {
  auth: true | string
  fresh?: number | undefined
  scope?: string | undefined
}

/** The route `createRoute` takes for a guarded config: its middleware, security and documented answers. */
const definitionOf = (
  guard: MiddlewareHandler,
  { auth, fresh, scope }: Guarding,
  config: Omit<RouteConfig, 'middleware'>,
  keysOn: boolean,
) => {
  const keys: KeysDocumented = !keysOn ? 'none' : scope === undefined ? 'scopeless' : { scope }
  const answers = guardAnswers({ auth, fresh, method: config.method, security: config.security, keys })
  return {
    ...config,
    ...answers.extensions,
    security: answers.security,
    middleware: [guardedBody(guard)],
    responses: {
      ...config.responses,
      ...answers.responses,
      ...(mayCarryBody(config.method) ? bodyGuardResponses : {}),
      500: internalErrorResponse,
    },
  } as RouteConfig & { path: string; middleware: MiddlewareHandler[] }
}

export const guardedRoute = <G extends MiddlewareHandler, C extends GuardedRouteConfig<string, string>>(
  guard: G,
  /** `fresh` and `scope` are documented here (`x-fresh`, the key's security requirement); the guard enforces them. */
  { auth, fresh, scope, ...config }: C,
  /** Whether API keys are on: only then does the document speak of them. */
  keysOn: boolean,
): GuardedRoute<C, G> => createRoute(definitionOf(guard, { auth, fresh, scope }, config, keysOn)) as unknown as GuardedRoute<C, G>

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

/** The query as @hono/zod-validator hands it to a schema: one value a string, several an array. */
const sentQuery = (c: Context): Record<string, string | string[] | undefined> =>
  Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0] : values]))

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
  keysOn: boolean,
  handler: MountedHandler<C, G, E> | FastQueryMismatch,
): void => {
  const { auth, fresh, scope, fastQuery, ...route } = config
  const definition = definitionOf(guard, { auth, fresh, scope }, route, keysOn)
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
