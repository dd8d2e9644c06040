/**
 * The limit counting both route builders share (docs/reference/limits.md): the `/auth` routes'
 * builder (`route-builder.ts`) counts a route's `limit: { name, keys }`, and an application's
 * guarded routes (`route.ts`, `auth.route` and `auth.openapi`) count `limit: { name, by }` with
 * the same keys (`limitBy` in `limits.ts`), the same numbers (the resolved `rateLimit` options),
 * the same 429 and the same `rate_limited` event. An application's name is never one the
 * library's routes count, so the two never share a counter.
 */
import type { Context } from 'hono'
import { type LimitFacts, limitBy, type RouteLimit } from './limits.js'
import type { Notifier } from './notify.js'
import type { ResolvedOptions } from './options.js'
import { type KeyRule, type RateLimitStore, rateLimiter } from './rate-limit.js'

/** The keys an application route may count: the client address and the signed-in user. */
export type AppLimitKey = 'ip' | 'user'

/**
 * An application route's limit: its name (in `RateLimit-Policy` and the `rate_limited` event;
 * letters, digits, `.`, `_` and `-`, not one the `/auth` routes use) and the keys it counts, each
 * with the numbers of the library's key of that name (`rateLimit.ip`, `rateLimit.user`).
 */
export interface AppLimit {
  name: string
  by: readonly AppLimitKey[]
}

/** Counts one request of a limited endpoint; throws its 429 (or its key's refusal) once a key is used up. */
export type Count<F> = (facts: F) => Promise<void>

export interface LimitCounter {
  /** A library route's limit, with the `rate_limited` event; its name is the library's from now on. */
  own(limit: RouteLimit): Count<LimitFacts>
  /** A library endpoint that counts its own facts and answers a refusal itself (the provider callback's redirect): no event. */
  ownRules<F>(endpoint: string, rules: readonly KeyRule<F>[]): Count<F>
  /**
   * An application route's limit, counted after its guard (`c.var.user` is set). Throws a
   * `TypeError` for a name the library's routes count, or a malformed one, or no or repeated keys.
   */
  app(limit: AppLimit): Count<Context>
}

/** A name as it is written in a key and a structured header field: no `:` (the key's separator), no quote. */
const NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

export const limitCounter = (deps: { store: RateLimitStore; notify: Notifier; options: ResolvedOptions }): LimitCounter => {
  const { options } = deps
  const limiter = rateLimiter({ store: deps.store, now: options.now })
  const libraryNames = new Set<string>()
  const counted = (limit: RouteLimit) =>
    limiter<LimitFacts>(
      limit.name,
      limit.keys.map((key) => ({
        kind: key.kind,
        limit: key.limit(options),
        valueOf: (f) => key.valueOf(f, options),
        ...(key.refusal ? { refusal: key.refusal } : {}),
      })),
      ({ c, userId, subject }) => {
        const account = userId ?? subject?.userId
        deps.notify.event(c, { type: 'rate_limited', endpoint: limit.name, ...(account ? { userId: account } : {}) })
      },
    )
  return {
    own(limit) {
      libraryNames.add(limit.name)
      return counted(limit)
    },
    ownRules(endpoint, rules) {
      libraryNames.add(endpoint)
      return limiter(endpoint, rules)
    },
    app({ name, by }) {
      if (typeof name !== 'string' || !NAME.test(name))
        throw new TypeError(`limit.name: "${String(name)}" must be 1 to 64 letters, digits, ".", "_" or "-"`)
      if (libraryNames.has(name))
        throw new TypeError(
          `limit.name: "${name}" is the limit of an /auth route; give the application's route a name of its own`,
        )
      if (by.length === 0 || new Set(by).size !== by.length || by.some((key) => key !== 'ip' && key !== 'user'))
        throw new TypeError(`limit.by of "${name}": list "ip", "user" or both, each once`)
      const count = counted({ name, keys: by.map((key) => limitBy[key]) })
      return (c) => count({ c, peek: {}, userId: (c.var as { user?: { id: string } }).user?.id ?? null, subject: null })
    },
  }
}
