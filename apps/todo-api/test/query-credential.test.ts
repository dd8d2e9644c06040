/**
 * docs/reference/credentials.md#credentials-in-the-query-string on every route, not only the guarded ones: a response to a request that carries
 * `?access_token=` has `Cache-Control: no-store` and `Referrer-Policy: no-referrer`; and an error
 * answer under /auth that comes before the auth routes (413, 415) is not cacheable either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, request, signup, startServer } from './support.js'

let server: RunningServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.stop())

describe('credential hygiene on unguarded routes', () => {
  it('answers ?access_token= requests with no-store and no-referrer on /health, /openapi.json, a docs asset and a 404', async () => {
    const { token } = await signup(server.base)
    for (const path of ['/health', '/openapi.json', '/docs/swagger-ui.css', '/nowhere', '/auth/nowhere']) {
      for (const value of [token, 'forged']) {
        const reply = await request(server.base, 'GET', `${path}?access_token=${value}`)
        expect(reply.status, path).toBeLessThan(500)
        expect(reply.headers.get('cache-control'), path).toBe('no-store')
        expect(reply.headers.get('referrer-policy'), path).toBe('no-referrer')
      }
    }
    // Without the parameter a route keeps its own caching.
    expect((await request(server.base, 'GET', '/docs/swagger-ui.css')).headers.get('cache-control')).toBe('public, max-age=86400')
  })

  it('answers 413 and 415 under /auth with no-store', async () => {
    const tooLarge = await request(server.base, 'POST', '/auth/login', {
      body: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(70_000) }),
      headers: { 'Content-Type': 'application/json' },
    })
    const notJson = await request(server.base, 'POST', '/auth/login', {
      body: 'email=a@example.com',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect([tooLarge.status, notJson.status]).toEqual([413, 415])
    for (const reply of [tooLarge, notJson]) expect(reply.headers.get('cache-control')).toBe('no-store')
  })
})
