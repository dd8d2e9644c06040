/**
 * A `createRoute` wrapper for guarded operations: it makes the guard the route's middleware
 * (so the handler's `c.var.user` is typed and non-null) and documents what the guard adds:
 * the bearer `security` requirement, the 401, for a policy `x-policy` and 403, and for a fresh
 * session `x-fresh` (RFC 9470's challenge on the 401).
 */
import { createRoute, type RouteConfig } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import { internalErrorResponse, problemResponse, unauthorizedResponse } from './openapi.js'

/** Name of the HTTP bearer security scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearerAuth'

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * A route definition as `createRoute` takes it, plus `auth` and optionally `fresh` (seconds: the
 * session must have proven its holder that recently). The guard is the route's middleware.
 */
export type GuardedRouteConfig<Name extends string> = Omit<RouteConfig, 'middleware'> & { auth: true | Name; fresh?: number }

export type GuardedRoute<C, G> = Omit<C, 'auth' | 'fresh'> & { middleware: [G]; getRoutingPath(): string }

export const guardedRoute = <G extends MiddlewareHandler, C extends GuardedRouteConfig<string>>(
  guard: G,
  /** `fresh` is documented here (`x-fresh`); the guard (or the route's own check) enforces it. */
  { auth, fresh, ...config }: C,
  /** Middleware that runs after the guard and before validation (the library's per-user limits). */
  after: MiddlewareHandler[] = [],
): GuardedRoute<C, G> => {
  // An app may send the access token as the `token` cookie: on an unsafe method, from another
  // site, that is 403 (docs/reference/credentials.md#cross-site-requests), as is a policy's refusal.
  const refusals = [
    ...(auth === true ? [] : [`the "${auth}" policy refused the caller`]),
    ...(UNSAFE.has(config.method.toUpperCase()) ? ['the `token` cookie was sent from another site'] : []),
  ]
  const definition: Record<string, unknown> = {
    ...config,
    ...(auth === true ? {} : { 'x-policy': auth }),
    ...(fresh === undefined ? {} : { 'x-fresh': fresh }),
    security: [...(config.security ?? []), { [BEARER_SCHEME]: [] }],
    middleware: [guard, ...after],
    responses: {
      ...config.responses,
      401: unauthorizedResponse(
        fresh === undefined
          ? 'No valid access token'
          : `No valid access token, or (\`reauthentication-required\`, with \`maxAge\`) a session that last proved its holder more than ${fresh} seconds ago`,
      ),
      ...(refusals.length > 0 ? { 403: problemResponse(`Forbidden: ${refusals.join('; or ')}`) } : {}),
      500: internalErrorResponse,
    },
  }
  return createRoute(definition as RouteConfig & { path: string }) as unknown as GuardedRoute<C, G>
}
