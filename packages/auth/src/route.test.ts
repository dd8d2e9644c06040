import { OpenAPIHono, z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'

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
