/**
 * Wires the HTTP app: app-wide middleware (request log, security headers), the
 * auth routes from @latchkey/auth with the `admin` policy, the todo, admin, health and reset-page
 * routes, the OpenAPI document and its reference page. It opens nothing: main.ts passes in the
 * database and the mailer, so tests and other hosts can build the same app.
 */

import type { HttpBindings } from '@hono/node-server'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { jsonBodyGuard, problemErrorHandler, problemNotFound, problemResponse, validationHook } from '@latchkey/auth/http'
import type { Context, MiddlewareHandler, NotFoundHandler } from 'hono'
import { cors } from 'hono/cors'
import { v7 as uuidv7 } from 'uuid'
import { type AppAuthOptions, createAppAuth } from './auth.js'
import { printable } from './printable.js'
import { type HeaderList, headerList, presetHeaders } from './response.js'
import { adminRoutes } from './routes/admin.js'
import { docsRoutes } from './routes/docs.js'
import { type FrontEnd, frontEndRoutes } from './routes/front-end.js'
import { resetPageRoute } from './routes/reset-page.js'
import { signInPageRoute } from './routes/sign-in-page.js'
import { todoRoutes } from './routes/todos.js'
import { tokenPageRoutes } from './routes/token-pages.js'

export interface AppOptions extends Omit<AppAuthOptions, 'log' | 'now'> {
  version: string
  /** One line per request: method, path without query, status, milliseconds. */
  logRequest?: (line: string) => void
  /** Unexpected errors (name and message only). */
  logError?: (line: string) => void
  now?: () => Date
  /** The web front end at `/` (main.ts passes the built one, or Vite's under `--dev`); none when unset. */
  frontEnd?: FrontEnd | null
}

/** What `hono/secure-headers` sends by default, on every response. */
const SECURITY_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Origin-Agent-Cluster': '?1',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=15552000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'SAMEORIGIN',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-XSS-Protection': '0',
}

/**
 * Gives the answer `list`'s headers, before the handler runs; a route that sets one itself (the
 * docs assets' Cache-Control) wins. On the reference server's Node response (`AppResponse`,
 * main.ts) they are handed to its `writeHead` in the adapter's one object (response.ts); on
 * another Node response they go onto it with `setHeader`, where the adapter's writeHead merges
 * them with the answer's own. The `hono/secure-headers` middleware instead rebuilds every
 * response's headers through a `Headers` object after the handler, which costs a trivial route
 * several times more server CPU than this (docs/PERFORMANCE.md). Other hosts get them via
 * `c.header()`.
 */
const answerHeaders = (c: Context, list: HeaderList) => {
  if (!presetHeaders((c.env as Partial<HttpBindings> | undefined)?.outgoing, list)) setHeaders(c, list)
}

/** Sets `list`'s headers on the answer now: on the Node response, or (another host) through `c.header()`. */
const setHeaders = (c: Context, { names, values }: HeaderList) => {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing
  if (outgoing) for (let i = 0; i < names.length; i++) outgoing.setHeader(names[i] as string, values[i] as string)
  else for (let i = 0; i < names.length; i++) c.header(names[i] as string, values[i] as string)
}

/** Paths whose answers carry personal data: never stored by caches along the way. */
const isPrivate = (path: string) =>
  path === '/todos' || path.startsWith('/todos/') || path === '/admin' || path.startsWith('/admin/')

/**
 * The first middleware of every request, one function instead of five (each a step of Hono's
 * chain and a promise per request):
 * - the request log: method, path, status and duration. Never the query string: it may carry
 *   `access_token` (or a reset `token`), and never headers or bodies, which carry tokens and passwords;
 * - the security headers, before the handler, and `Cache-Control: no-store` on the todo and
 *   admin routes, whose answers carry personal data;
 * - a GET or HEAD that declares a body over the limit is 413 on every path, public ones too (a
 *   route that takes a body guards its own, and the 404 guards what no route took);
 * - docs/reference/credentials.md#credentials-in-the-query-string: a response to a request with
 *   `?access_token=` is never cached and never leaks the URL in a Referer, on every route (the
 *   guard does this for guarded ones; this covers /health, /openapi.json, the docs assets and
 *   404s too). After the handler, so it wins over a route's own.
 */
const firstMiddleware = (write: (line: string) => void): MiddlewareHandler => {
  const everyAnswer = headerList(SECURITY_HEADERS)
  const privateAnswer = headerList({ ...SECURITY_HEADERS, 'Cache-Control': 'no-store' })
  const bodyGuard = jsonBodyGuard()
  return async function everyRequest(c, next) {
    const started = performance.now()
    const { path, method } = c.req
    answerHeaders(c, isPrivate(path) ? privateAnswer : everyAnswer)
    if (method === 'GET' || method === 'HEAD') await bodyGuard(c, next)
    else await next()
    if (c.req.query('access_token') !== undefined) {
      c.header('Cache-Control', 'no-store')
      c.header('Referrer-Policy', 'no-referrer')
    }
    // The path arrives percent-decoded and is the client's to choose.
    write(`${c.req.method} ${printable(path)} ${c.res.status} ${Math.round(performance.now() - started)}ms`)
  }
}

/**
 * 404 for a request no route took, after the body guard: 413 and 415 come before 404 there too
 * (docs/reference/conventions.md#which-error-wins). The routes that take a body install the
 * guard themselves (`auth.openapi`, `auth.route`, the auth routes).
 */
const bodyGuardedNotFound = (): NotFoundHandler => {
  const bodyGuard = jsonBodyGuard()
  return async function notFound(c) {
    await bodyGuard(c, async () => {})
    return problemNotFound(c)
  }
}

export const createApp = (options: AppOptions) => {
  const { db } = options
  const logError = options.logError ?? ((line: string) => console.error(line))
  const now = options.now ?? (() => new Date())

  const auth = createAppAuth({ ...options, log: logError, now })

  const app = new OpenAPIHono({ defaultHook: validationHook })
  app.use('*', firstMiddleware(options.logRequest ?? ((line) => console.log(line))))
  // Front ends on the trusted origins (TRUSTED_ORIGINS) may read answers and send the refresh
  // cookie; every other origin gets no CORS headers at all.
  // (hono/cors leaves out only Allow-Origin for the others, so it runs for trusted origins alone.)
  const trusted = new Set(options.trustedOrigins ?? [])
  if (trusted.size > 0) {
    const trustedCors = cors({
      origin: [...trusted],
      credentials: true,
      allowHeaders: ['Content-Type', 'Authorization'],
      allowMethods: ['GET', 'POST', 'PATCH', 'DELETE'],
      exposeHeaders: ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate'],
      maxAge: 600,
    })
    // The answer differs for a trusted Origin. Set before the handler, as the security headers
    // are (no route sets Vary itself): appending to the answer's headers afterwards built a
    // `Headers` object for every response, and sent the Node adapter down its slower path.
    const varyOrigin = headerList({ Vary: 'Origin' })
    app.use('*', async function corsForTrustedOrigins(c, next) {
      if (trusted.has(c.req.header('Origin') ?? '')) return trustedCors(c, next)
      setHeaders(c, varyOrigin)
      await next()
    })
  }
  app.onError(problemErrorHandler(logError))
  app.notFound(bodyGuardedNotFound())

  app.route('/auth', auth.routes)
  // The public keys other services verify access tokens with (AUTH_SIGNING_KEYS).
  app.route('/', auth.wellKnown)
  todoRoutes(app, { auth, todos: db.todos, newId: () => uuidv7(), now })
  adminRoutes(app, { auth, db })
  resetPageRoute(app)
  tokenPageRoutes(app)
  signInPageRoute(app)
  if (options.frontEnd) frontEndRoutes(app, options.frontEnd)

  app.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      security: [],
      tags: ['ops'],
      summary: 'Liveness: 200 when the database answers',
      responses: {
        200: {
          description: 'The service and its database answer',
          content: { 'application/json': { schema: z.object({ status: z.literal('ok') }).openapi('Health') } },
        },
        503: problemResponse('The database does not answer'),
      },
    }),
    async (c) => {
      if (await db.ping()) return c.json({ status: 'ok' as const }, 200)
      const problem = {
        type: 'urn:latchkey:problem:unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The database does not answer.',
      }
      return c.json(problem, 503, { 'Content-Type': 'application/problem+json' })
    },
  )

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Latchkey todo API',
      version: options.version,
      description:
        'Reference server of @latchkey/auth: email/password sign-in and a private todo list per user. ' +
        'Errors are RFC 9457 problem documents (application/problem+json).',
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
      contact: { name: 'Latchkey contributors' },
    },
    tags: [
      { name: 'auth', description: 'Sign up, sign in, sessions and passwords (@latchkey/auth)' },
      { name: 'two-factor', description: 'A second factor: TOTP codes and recovery codes (@latchkey/auth)' },
      { name: 'passkeys', description: 'Passkeys (WebAuthn): sign-in, a second factor, re-authentication (@latchkey/auth)' },
      {
        name: 'social sign-in',
        description:
          'Sign-in through OpenID Connect and OAuth 2.0 providers, and the identities linked to an account (@latchkey/auth)',
      },
      { name: 'todos', description: "The signed-in user's todos" },
      { name: 'admin', description: 'Operations for users the `admin` policy admits' },
      { name: 'ops', description: 'For load balancers and operators' },
      { name: 'pages', description: 'HTML pages the mails link to' },
    ],
    // Relative, so "Try it out" on /docs works from whatever host name the page was opened at
    // (its CSP allows connect-src 'self' only).
    servers: [
      { url: '/', description: 'The server that served this document: local, staging or production alike', 'x-internal': false },
    ],
  })
  docsRoutes(app, '/openapi.json', 'Latchkey todo API')
  // Browsers ask for it on every page; an empty answer keeps their consoles free of 404s.
  app.get('/favicon.ico', (c) => c.body(null, 204))

  // On shutdown the server stops the sweep and awaits the auth work that runs after answers
  // (reset mails) before the database closes.
  return Object.assign(app, { close: () => auth.close() })
}
