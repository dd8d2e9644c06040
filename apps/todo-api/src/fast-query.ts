/**
 * `app.openapi()` for a route whose query has one common form: the route is documented exactly
 * as declared, and served with its query validated by `common` when that recognises the URL
 * (without zod), by the route's own schema otherwise, with the app's validation hook: the same
 * values and the same 400s. Validating `?limit=20` through @hono/zod-validator (every parameter
 * parsed out of the URL, an async parse, the hook) was the largest layer the reference server
 * added to a guarded read (docs/PERFORMANCE.md#the-layers-of-a-request).
 */
import type { OpenAPIHono, RouteConfig, RouteHandler, z } from '@hono/zod-openapi'
import { validationHook } from '@latchkey/auth/http'
import type { Context, MiddlewareHandler } from 'hono'

type QueryRoute = RouteConfig & { request: { query: z.ZodObject } }

/** The query as @hono/zod-validator hands it to the schema: one value a string, several an array. */
const sentQuery = (c: Context): Record<string, string | string[] | undefined> =>
  Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0] : values]))

export const openapiWithCommonQuery = <R extends QueryRoute>(
  app: OpenAPIHono,
  route: R,
  /** The validated query when the URL has the common form (exactly what the schema would make of it); `undefined` otherwise. */
  common: (url: string) => z.output<R['request']['query']> | undefined,
  handler: RouteHandler<R>,
): void => {
  const { middleware, hide: _, ...documented } = route
  app.openAPIRegistry.registerPath(documented)
  const schema = route.request.query
  const validateQuery: MiddlewareHandler = async function validateQuery(c, next) {
    let query: object | undefined = common(c.req.url)
    if (query === undefined) {
      const sent = sentQuery(c)
      const result = schema.safeParse(sent)
      validationHook({ data: sent, ...result, target: 'query' } as never, c as never) // throws the 400
      query = result.data
    }
    c.req.addValidatedData('query', query ?? {})
    await next()
  }
  const before = middleware === undefined ? [] : Array.isArray(middleware) ? middleware : [middleware]
  const { query: __, ...request } = route.request
  app.openapi({ ...route, request, hide: true, middleware: [...before, validateQuery] }, handler as never)
}
