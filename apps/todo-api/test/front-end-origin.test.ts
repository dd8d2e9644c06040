/**
 * A front end on another origin (docs/reference/credentials.md#cross-site-requests) against the reference server: `TRUSTED_ORIGINS`
 * gets CORS with credentials and may use the refresh cookie; every other origin gets neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cookieFrom, type RunningServer, request, signup, startServer } from './support.js'

const SPA = 'http://localhost:5173'
let server: RunningServer

beforeAll(async () => {
  server = await startServer({ env: { TRUSTED_ORIGINS: `${SPA},https://app.example.com` } })
})

afterAll(async () => {
  await server?.stop()
})

describe('a front end on a trusted origin', () => {
  it('gets a CORS preflight with credentials; other origins get no CORS headers', async () => {
    const preflight = await request(server.base, 'OPTIONS', '/auth/refresh', {
      headers: { Origin: SPA, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SPA)
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
    expect(preflight.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers')
    // Another origin, a preflight or a plain request, and a request with no Origin: no CORS header at all.
    const foreignPreflight = await request(server.base, 'OPTIONS', '/auth/refresh', {
      headers: { Origin: 'http://evil.test', 'Access-Control-Request-Method': 'POST' },
    })
    const foreign = await request(server.base, 'GET', '/health', { headers: { Origin: 'http://evil.test' } })
    const none = await request(server.base, 'GET', '/health')
    for (const res of [foreignPreflight, foreign, none]) {
      expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
      expect(res.headers.get('vary')).toMatch(/Origin/)
    }
    expect(foreignPreflight.status).toBe(404)
  })

  it('refreshes and signs out with the cookie alone; a foreign origin is refused', async () => {
    const ada = await signup(server.base)
    const evil = await request(server.base, 'POST', '/auth/refresh', {
      cookie: ada.refreshCookie,
      headers: { Origin: 'http://evil.test' },
    })
    expect(evil.status).toBe(403)
    const refreshed = await request(server.base, 'POST', '/auth/refresh', {
      cookie: ada.refreshCookie,
      headers: { Origin: SPA, 'Sec-Fetch-Site': 'same-site' },
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.headers.get('access-control-allow-origin')).toBe(SPA)
    const cookie = cookieFrom(refreshed, 'refresh_token') ?? ''
    // After a page reload the access token is gone: the cookie alone ends the session.
    const out = await request(server.base, 'POST', '/auth/logout', { cookie, headers: { Origin: SPA } })
    expect(out.status).toBe(204)
    expect((await request(server.base, 'POST', '/auth/refresh', { cookie, headers: { Origin: SPA } })).status).toBe(401)
  })
})
