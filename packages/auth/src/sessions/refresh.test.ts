import { describe, expect, it } from 'vitest'
import { cookieHeader, harness, refreshCookie } from '../../test/harness.js'

const DAY = 86_400_000

describe('POST /auth/refresh', () => {
  it('rotates: a new access token and a new cookie; the old value stops working at once', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as { accessToken: string }
    expect(body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 })
    const next = refreshCookie(res)
    expect(next).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{65}$/)
    expect(next).not.toBe(refresh)
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${body.accessToken}` } })).status).toBe(200)

    const again = await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })
    expect(again.status).toBe(401)
    expect(again.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
    expect(refreshCookie(again)).toBeUndefined() // inside the race window: nothing else happens
    // The race loser's body is the body of every other refused refresh: it tells a thief nothing.
    const unknown = await h.request('POST', '/auth/refresh', { headers: cookieHeader('A'.repeat(43)) })
    expect(await again.text()).toBe(await unknown.text())
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(next as string) })).status).toBe(200)
  })

  it('treats a rotated value presented after the race window as reuse: the whole session dies, access tokens too', async () => {
    const h = harness()
    const { refresh, bearer } = await h.signup()
    const rotated = await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })
    const current = refreshCookie(rotated) as string
    const { accessToken } = (await rotated.json()) as { accessToken: string }
    h.clock.advance(10_000)

    const reuse = await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })
    expect(reuse.status).toBe(401)
    expect(refreshCookie(reuse)).toBe('')
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: bearer })).status).toBe(401)
  })

  it('with the race window at 0, any rotated value is reuse', async () => {
    const h = harness({ refreshReuseGrace: 0 })
    const { refresh, bearer } = await h.signup()
    await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })).status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: bearer })).status).toBe(401)
  })

  it('lets exactly one of 20 concurrent refreshes with one value win, and the session survives', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })),
    )
    const winners = results.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    expect(results.filter((r) => r.status === 401)).toHaveLength(19)
    const next = refreshCookie(winners[0] as Response) as string
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(next) })).status).toBe(200)
  })

  it('ends a session not refreshed for 30 days, and any session 90 days after login', async () => {
    const h = harness()
    const idle = await h.signup('idle@example.com')
    h.clock.advance(30 * DAY)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(idle.refresh) })).status).toBe(401)

    const busy = await h.signup('busy@example.com')
    let value = busy.refresh
    for (let day = 0; day < 89; day += 29) {
      const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(value) })
      expect(res.status).toBe(200)
      const maxAge = Number(/Max-Age=(\d+)/.exec(res.headers.getSetCookie().join(''))?.[1])
      expect(maxAge).toBeLessThanOrEqual(Math.min(30 * 86_400, 90 * 86_400 - day * 86_400))
      value = refreshCookie(res) as string
      h.clock.advance(29 * DAY)
    }
    h.clock.advance(2 * DAY) // now past 90 days since login
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(value) })).status).toBe(401)
  })

  it('refuses a missing, unknown, empty or doubled cookie with 401', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    const missing = await h.request('POST', '/auth/refresh')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer')
    for (const Cookie of ['refresh_token=forged', 'refresh_token=', `refresh_token=${refresh}; refresh_token=${refresh}`])
      expect((await h.request('POST', '/auth/refresh', { headers: { Cookie } })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })).status).toBe(200)
  })

  it('refuses the cookie from a foreign Origin or a cross-site fetch with 403, spending nothing', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    for (const headers of [{ Origin: 'https://evil.test' }, { 'Sec-Fetch-Site': 'cross-site' }] as Record<string, string>[])
      expect((await h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(refresh), ...headers } })).status).toBe(403)
    const same = await h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(refresh), Origin: 'http://app.test' } })
    expect(same.status).toBe(200)
  })

  it('from another site, answers 401 before the 403 for a cookie that is no live credential, changing nothing', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    const rotated = await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })
    const current = refreshCookie(rotated) as string
    h.clock.advance(60_000) // past the race window: same-site, the old value would be reuse
    const evil = { Origin: 'https://evil.test' }
    for (const value of ['garbage', 'A'.repeat(43), refresh, `${current.slice(0, -4)}AAAA`]) {
      const res = await h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(value), ...evil } })
      expect(res.status, value).toBe(401)
      expect(res.headers.getSetCookie()).toEqual([])
      const out = await h.request('POST', '/auth/logout', { headers: { ...cookieHeader(value), ...evil } })
      expect(out.status, value).toBe(401)
    }
    // The live cookie from another site: 403 on both, and the session goes on.
    expect((await h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(current), ...evil } })).status).toBe(403)
    expect((await h.request('POST', '/auth/logout', { headers: { ...cookieHeader(current), ...evil } })).status).toBe(403)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(200)
  })

  it('says in the 403 which origin it expected and which option sets it (a dev server on another port)', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    const res = await h.request('POST', '/auth/refresh', {
      headers: { ...cookieHeader(refresh), Origin: 'http://localhost:3102' },
    })
    expect(res.status).toBe(403)
    const { detail } = (await res.json()) as { detail: string }
    expect(detail).toContain('http://app.test')
    expect(detail).toContain('trustedOrigins')
  })

  it('uses Secure cookies named __Secure-refresh_token when cookies are secure', async () => {
    const h = harness({ publicUrl: 'https://app.test' })
    const res = await h.request('POST', '/auth/signup', {
      json: { name: 'S', email: 's@example.com', password: 'correct horse battery staple' },
    })
    const line = res.headers
      .getSetCookie()
      .filter((l) => l.includes('refresh_token='))
      .join('\n')
    expect(line).toMatch(/^__Secure-refresh_token=[^;]+; Max-Age=2592000; Path=\/auth; HttpOnly; Secure; SameSite=Strict$/)
    const value = refreshCookie(res) as string
    expect((await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${value}` } })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: { Cookie: `__Secure-refresh_token=${value}` } })).status).toBe(
      200,
    )
  })
})
