import { OpenAPIHono, z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'
import { validationHook } from './validation.js'

/** The access token's three places, in the guard's order: the bearer header first. */
const ACCESS = [{ bearerAuth: [] }, { tokenCookie: [] }, { accessTokenQuery: [] }]

describe('auth.route: guarded operations in the OpenAPI document', () => {
  it('adds security, 401, and for a policy x-policy and 403; the auth routes are documented too', async () => {
    const h = harness()
    const app = new OpenAPIHono()
    app.route('/auth', h.auth.routes)
    const Stats = z.object({ users: z.number() })
    app.openapi(
      h.auth.route({
        method: 'get',
        path: '/stats',
        auth: 'admin',
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: Stats } } } },
      }),
      (c) => c.json({ users: c.var.user.raw.role === 'admin' ? 1 : 0 }, 200),
    )
    app.openapi(h.auth.route({ method: 'get', path: '/mine', auth: true, responses: { 204: { description: 'ok' } } }), (c) =>
      c.body(null, 204),
    )
    const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })

    const stats = doc.paths?.['/stats']?.get as Record<string, unknown> & { responses: Record<string, unknown> }
    expect(stats.security).toEqual(ACCESS)
    expect(stats['x-policy']).toBe('admin')
    expect(Object.keys(stats.responses).sort()).toEqual(['200', '401', '403', '500'])
    const mine = doc.paths?.['/mine']?.get as Record<string, unknown> & { responses: Record<string, unknown> }
    expect(mine.security).toEqual(ACCESS)
    expect(mine['x-policy']).toBeUndefined()
    expect(Object.keys(mine.responses).sort()).toEqual(['204', '401', '500'])
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    // The guard's other two places for the access token, after the header, as alternatives.
    expect(doc.components?.securitySchemes?.tokenCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'token' })
    expect(doc.components?.securitySchemes?.accessTokenQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'access_token' })

    for (const path of ['signup', 'login', 'refresh', 'logout', 'change-password', 'forgot-password', 'reset-password'])
      expect(doc.paths?.[`/auth/${path}`]?.post, path).toBeDefined()
    expect(doc.paths?.['/auth/me']?.get?.security).toEqual(ACCESS)
    expect(doc.paths?.['/auth/logout']?.post?.responses?.['401']).toBeDefined()
    const limited = doc.paths?.['/auth/login']?.post?.responses?.['429'] as { headers?: Record<string, unknown> } | undefined
    expect(limited?.headers).toHaveProperty('Retry-After')

    // And the guard really runs on such a route.
    const res = await app.request('/stats')
    expect(res.status).toBe(401)
  })

  it('puts 415 ahead of 401, and 413 ahead of both', async () => {
    const h = harness()
    const res = await h.request('POST', '/auth/change-password', { body: 'x', headers: { 'Content-Type': 'text/plain' } })
    expect(res.status).toBe(415)
    const big = await h.request('POST', '/auth/change-password', {
      body: 'x'.repeat(65 * 1024),
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(big.status).toBe(413)
  })
})

describe("an application's routes get the body guard from the builder", () => {
  const Note = z.object({ text: z.string().min(1) })
  const app = (h: ReturnType<typeof harness>) => {
    const app = new OpenAPIHono({ defaultHook: validationHook })
    app.route('/auth', h.auth.routes)
    app.openapi(
      h.auth.route({
        method: 'post',
        path: '/notes',
        auth: true,
        request: { body: { required: true, content: { 'application/json': { schema: Note } } } },
        responses: { 201: { description: 'made' } },
      }),
      (c) => c.body(null, 201),
    )
    h.auth.openapi(
      app,
      {
        method: 'put',
        path: '/notes/{id}',
        auth: true,
        request: {
          params: z.object({ id: z.string() }),
          body: { required: true, content: { 'application/json': { schema: Note } } },
        },
        responses: { 204: { description: 'kept' } },
      },
      (c) => c.body(null, 204),
    )
    return app
  }

  it('documents 413 and 415 on the operations that take a body', () => {
    const doc = app(harness()).getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })
    expect(Object.keys(doc.paths?.['/notes']?.post?.responses ?? {}).sort()).toEqual(['201', '401', '403', '413', '415', '500'])
    expect(Object.keys(doc.paths?.['/notes/{id}']?.put?.responses ?? {}).sort()).toEqual([
      '204',
      '401',
      '403',
      '413',
      '415',
      '500',
    ])
  })

  it('answers 413 and 415 ahead of 401, then 401, then validation', async () => {
    const h = harness()
    const a = app(h)
    const { accessToken } = await h.signup()
    const send = (method: string, path: string, body: string, type: string, token?: string) =>
      a.request(path, {
        method,
        body,
        headers: { 'Content-Type': type, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      })
    for (const [method, path] of [
      ['POST', '/notes'],
      ['PUT', '/notes/1'],
    ] as const) {
      expect((await send(method, path, 'x'.repeat(65 * 1024), 'application/json')).status, path).toBe(413)
      expect((await send(method, path, 'x', 'text/plain')).status, path).toBe(415)
      expect((await send(method, path, '{"text":"a"}', 'application/json')).status, path).toBe(401)
      expect((await send(method, path, '{"text":""}', 'application/json', accessToken)).status, path).toBe(400)
      expect((await send(method, path, '{"text":"a"}', 'application/json', accessToken)).status, path).toBeLessThan(300)
    }
  })
})

describe('auth.openapi: a fast query path beside the schema', () => {
  const Query = z.object({
    limit: z
      .string()
      .regex(/^\d+$/)
      .transform(Number)
      .pipe(z.number().int().min(1).max(100))
      .optional()
      .default(20)
      .openapi({ type: 'integer', description: 'Most to return' }),
  })
  let fastCalls = 0
  const fastQuery = (url: string) => {
    fastCalls++
    return url.endsWith('/list') ? { limit: 20 } : undefined
  }
  const setup = async () => {
    const h = harness()
    const app = new OpenAPIHono({ defaultHook: validationHook })
    app.route('/auth', h.auth.routes)
    const config = {
      method: 'get',
      path: '/list',
      auth: true,
      request: { query: Query },
      fastQuery,
      responses: { 200: { description: 'the query', content: { 'application/json': { schema: z.object({}) } } } },
    } as const
    h.auth.openapi(app, config, (c) => c.json(c.req.valid('query'), 200))
    const { accessToken } = await h.signup()
    const get = (path: string) => app.request(path, { headers: { Authorization: `Bearer ${accessToken}` } })
    return { app, get, h, config }
  }

  it('documents the route as app.openapi(auth.route(…)) does, query included', async () => {
    const { app, h, config } = await setup()
    const plain = new OpenAPIHono()
    const { fastQuery: _, ...route } = config
    plain.openapi(h.auth.route(route), (c) => c.json(c.req.valid('query'), 200))
    const info = { openapi: '3.1.0', info: { title: 't', version: '1' } }
    const list = app.getOpenAPI31Document(info).paths?.['/list']?.get
    expect(list?.parameters).toMatchObject([{ in: 'query', name: 'limit', required: false }])
    expect(list?.security).toEqual(ACCESS)
    expect(list).toEqual(plain.getOpenAPI31Document(info).paths?.['/list']?.get)
  })

  it('takes the fast path where it answers, the schema and its 400s everywhere else', async () => {
    const { get } = await setup()
    fastCalls = 0
    expect(await (await get('/list')).json()).toEqual({ limit: 20 })
    expect(fastCalls).toBe(1)
    expect(await (await get('/list?limit=7')).json()).toEqual({ limit: 7 })
    expect(fastCalls).toBe(2)
    for (const query of ['limit=0', 'limit=x', 'limit=1&limit=2']) {
      const res = await get(`/list?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.headers.get('content-type'), query).toBe('application/problem+json')
      expect(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path, query).toBe('limit')
    }
  })

  it('runs the guard first: no credential is 401, however the query looks', async () => {
    const { app } = await setup()
    for (const path of ['/list', '/list?limit=x']) expect((await app.request(path)).status, path).toBe(401)
  })
})
