/**
 * The route builder of the `/auth` routes: what a route needs is declared, not plumbed. A route
 * gives its OpenAPI config and its needs (a small peek at the body, a lookup of what the request
 * concerns, the limit keys it counts, whether it hashes a password); the builder installs them in
 * the order of docs/reference/conventions.md#which-error-wins, hands the results to the handler
 * through typed `c.var`, and documents the answers of what it installed (401, 403, 413, 415,
 * 429, 500, 503), so the document and the server cannot drift apart.
 *
 * Per request, in order: the body guard (413, 415: installed once on the app), the guard (401,
 * 403), the body parsed once, the peek, the password-or-fresh check (401), the verified address
 * (403), the lookup, the limit
 * (429, docs/reference/limits.md#where-limits-run), validation of the parsed body (400), the
 * handler. Nothing is parsed or looked up twice.
 */
import { type OpenAPIHono, type RouteConfig, type RouteHandler, z } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { emailUnverified } from './add-credential-code.js'
import { jsonBodyGuard, mayCarryBody } from './body.js'
import { AuthError, reauthenticationRequired } from './errors.js'
import type { GuardVariables, InternalGuardOptions } from './guard.js'
import { guardAnswers } from './guard-answers.js'
import type { LimitCounter } from './limit-counter.js'
import type { RouteLimit, Subject } from './limits.js'
import { bodyGuardResponses, internalErrorResponse, overloadedResponse, rateLimitedResponse } from './openapi.js'
import type { ResolvedOptions } from './options.js'
import type { PasswordHasher } from './password.js'
import { isFresh } from './session-proof.js'
import type { UserRecord } from './store/types.js'
import { sentQuery, validationHook } from './validation.js'

/** The fields a route peeks at before validation, each with the type it must have to be read. */
export type PeekShape = Record<string, z.ZodType>
/** A peek: each field as declared, or `undefined` (absent, or of another type). */
export type Peeked<P extends PeekShape> = { readonly [K in keyof P]?: z.output<P[K]> }

/** What a lookup is given: the peek and, on a guarded route, the signed-in user. */
export interface LookupFacts<P extends PeekShape> {
  c: Context
  peek: Peeked<P>
  userId: string | null
}

/**
 * What a route needs before its handler runs. `lookup` finds what the request concerns (a
 * token's owner, a challenge's account, a known device, the refresh cookie's session) without
 * spending it. Its answer is a record typed by the route: the {@link Subject} fields are what the
 * limit keys read, and the rest is what the handler needs from the same work (the row it read, the
 * token's hash, the parsed cookie), so nothing is hashed, parsed or looked up twice.
 */
export interface Needs<P extends PeekShape, S extends Subject, H extends boolean> {
  peek?: P
  lookup?: (facts: LookupFacts<P>) => Promise<S | null>
  limit?: RouteLimit
  /** The handler hashes or verifies a password: `c.var.hasher` is this client's share of the queue, and 503 is documented. */
  hashes?: H
  /** The route's own credential check, first (logout: the access token or the refresh cookie); it documents its own 401. */
  credential?: MiddlewareHandler
}

/** What the builder hands the handler in `c.var`. */
export type NeedsVariables<P extends PeekShape, S, H extends boolean> = {
  peek: Peeked<P>
  /** The lookup's answer, typed by the route's `lookup` (`null` without a lookup, or when it found nothing). */
  subject: S | null
} & (H extends true ? { hasher: PasswordHasher } : unknown)

/** A route's OpenAPI config, without the parts the builder owns (`middleware`). */
export type EndpointConfig = Omit<RouteConfig, 'middleware'>

/**
 * A guarded route's config: `fresh` seconds, enforced by the guard or, with `orCurrentPassword`,
 * by the current password instead; `verifiedEmail`: an account whose address is not verified is
 * refused with 403 (`email_unverified`) before the limit and validation, as 403 comes before 429
 * and 400 (docs/reference/conventions.md#which-error-wins).
 */
export type GuardedEndpointConfig = EndpointConfig & {
  fresh?: number
  orCurrentPassword?: true
  verifiedEmail?: true
  /** `any`: every live API key may call it (`GET /me`); otherwise a key gets 403 `session_required`. */
  apiKeys?: 'any'
  /** A policy the caller must pass too (403; the operators' routes), documented as `x-policy`. */
  policy?: string
}

export interface RouteBuilderDeps<U extends UserRecord> {
  guard: (auth: true | string, options?: InternalGuardOptions) => MiddlewareHandler<{ Variables: GuardVariables<U> }>
  /** The password hasher for the client of request `c`. */
  hasher: (c: Context) => PasswordHasher
  /** The limits' counter, shared with the application's routes (`limit-counter.ts`). */
  limits: LimitCounter
  options: ResolvedOptions
}

/** The media types the JSON validator reads (Hono's); the body guard refused other bodies already. */
const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i

const malformedJson = () => new AuthError('malformed_json', { detail: 'The request body is not valid JSON.' })

/** The body's JSON schema of a config, if it declares one. */
const bodySchemaOf = (config: EndpointConfig): z.ZodType | undefined => {
  const media = config.request?.body?.content?.['application/json']
  return media && 'schema' in media ? (media.schema as z.ZodType) : undefined
}

const validated = async (c: Context, target: 'param' | 'query' | 'json', schema: z.ZodType, value: unknown) => {
  const result = await schema.safeParseAsync(value)
  // The same hook as every other validation: one 400 listing every field error (throws).
  await validationHook({ data: value, ...result, target } as Parameters<typeof validationHook>[0], c)
  c.req.addValidatedData(target, result.data as object)
}

const ownDescription = (response: RouteConfig['responses'][number] | undefined) =>
  response && 'description' in response ? response.description : undefined

export const routeBuilder = <U extends UserRecord>(app: OpenAPIHono, deps: RouteBuilderDeps<U>) => {
  const { options } = deps
  // 413 and 415 come first, on every route (docs/reference/conventions.md#body-size-and-media-type).
  app.use('*', jsonBodyGuard())

  const install = (
    config: GuardedEndpointConfig,
    needs: Needs<PeekShape, Subject, boolean>,
    guard: MiddlewareHandler | null,
    handler: unknown,
  ) => {
    const { fresh, orCurrentPassword, verifiedEmail, apiKeys, policy, request, ...route } = config
    const bodySchema = bodySchemaOf(config)
    const params = request?.params as z.ZodType | undefined
    const query = request?.query as z.ZodType | undefined
    const peekSchema = needs.peek
      ? z.object(Object.fromEntries(Object.entries(needs.peek).map(([k, s]) => [k, s.optional().catch(undefined)]))).catch({})
      : null
    const { limit, lookup, hashes } = needs
    const count = limit && deps.limits.own(limit)

    const prepare: MiddlewareHandler = async function prepare(c, next) {
      let body: unknown = {}
      let malformed = false
      if (bodySchema && JSON_MEDIA.test((c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? '')) {
        try {
          body = JSON.parse(await c.req.text())
        } catch {
          malformed = true
        }
      }
      const peek = (peekSchema?.parse(malformed ? {} : body) ?? {}) as Record<string, unknown>
      const user = (c.var as Partial<GuardVariables<U>>).user
      // Without the password, only a fresh session proves the holder: 401 before the limit, counting nothing.
      if (orCurrentPassword && fresh !== undefined) {
        // A wrong type is validation's 400, not a missing proof.
        const current = (body as { currentPassword?: unknown } | null)?.currentPassword
        if (current === undefined && !isFresh(c.var as GuardVariables<U>, options.now(), fresh))
          throw reauthenticationRequired(fresh)
      }
      if (verifiedEmail && !user?.raw.emailVerified) throw emailUnverified()
      const userId = user?.id ?? null
      const subject = lookup ? await lookup({ c, peek, userId }) : null
      c.set('peek' as never, peek as never)
      c.set('subject' as never, subject as never)
      if (hashes) c.set('hasher' as never, deps.hasher(c) as never)
      if (count) await count({ c, peek, userId, subject })
      if (params) await validated(c, 'param', params, c.req.param())
      if (query) await validated(c, 'query', query, sentQuery(c))
      if (bodySchema) {
        if (malformed) throw malformedJson()
        await validated(c, 'json', bodySchema, body)
      }
      await next()
    }

    const guarded = guard
      ? guardAnswers(
          {
            auth: policy ?? true,
            fresh,
            method: route.method,
            security: route.security,
            keys: options.apiKeys ? (apiKeys ?? 'session') : 'none',
          },
          ownDescription(route.responses[403]),
        )
      : null
    const documented = {
      ...route,
      ...(request ? { request } : {}),
      ...guarded?.extensions,
      security: guarded?.security ?? route.security ?? [],
      responses: {
        ...route.responses,
        ...guarded?.responses,
        ...(mayCarryBody(route.method) ? bodyGuardResponses : {}),
        ...(limit ? { 429: rateLimitedResponse } : {}),
        500: internalErrorResponse,
        ...(hashes ? { 503: overloadedResponse } : {}),
      },
    }
    app.openAPIRegistry.registerPath(documented as RouteConfig)
    // Validation is the builder's (above, on the body it parsed once), so the route is mounted
    // without its `request` and zod-openapi adds no validator of its own.
    const { request: _documentedOnly, ...mounted } = documented
    app.openapi(
      {
        ...mounted,
        hide: true,
        middleware: [...(guard ? [guard] : []), ...(needs.credential ? [needs.credential] : []), prepare],
      } as RouteConfig,
      handler as never,
    )
  }

  return {
    /** A public operation (`security: []` unless the config names one, as refresh's cookie). */
    public<
      R extends EndpointConfig,
      P extends PeekShape = Record<never, z.ZodType>,
      S extends Subject = never,
      H extends boolean = false,
    >(config: R, needs: Needs<P, S, H>, handler: RouteHandler<R, { Variables: NeedsVariables<P, S, H> }>) {
      install(config, needs as Needs<PeekShape, Subject, boolean>, null, handler)
    },
    /**
     * An operation for a signed-in user: the guard runs first (with `fresh`, unless
     * `orCurrentPassword` lets the current password stand in), so `c.var.user` is typed and non-null.
     */
    guarded<
      R extends GuardedEndpointConfig,
      P extends PeekShape = Record<never, z.ZodType>,
      S extends Subject = never,
      H extends boolean = false,
    >(config: R, needs: Needs<P, S, H>, handler: RouteHandler<R, { Variables: GuardVariables<U> & NeedsVariables<P, S, H> }>) {
      const strict = config.orCurrentPassword ? undefined : config.fresh
      // The auth routes take no API keys (a key never makes a key or changes the account), `GET /me` any.
      const keys = config.apiKeys ?? 'session'
      install(
        config,
        needs as Needs<PeekShape, Subject, boolean>,
        deps.guard(config.policy ?? true, strict === undefined ? { keys } : { fresh: strict, keys }) as MiddlewareHandler,
        handler,
      )
    },
  }
}

export type RouteBuilder<U extends UserRecord> = ReturnType<typeof routeBuilder<U>>
