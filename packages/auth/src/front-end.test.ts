/**
 * Front ends on their own origin (docs/reference/credentials.md#cross-site-requests): trusted origins for the cookie-borne
 * credentials, logout with the refresh cookie alone, `auth.optional()` and `auth.verify()`.
 */
import { Hono } from 'hono'
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { cookieHeader, harness, harness as makeHarness, SECRET } from '../test/harness.js'
import { type OpenedStore, STORES } from '../test/stores.js'
import { createAuth } from './create-auth.js'
import type { AuthUser } from './domain.js'
import type { UserRecord } from './store/types.js'

const SPA = 'http://localhost:5173'

describe('trustedOrigins', () => {
  it('lets a trusted front end refresh with the cookie, and still refuses every other origin', async () => {
    const h = harness({ trustedOrigins: [SPA] })
    const { refresh } = await h.signup()
    const from = (origin: string, extra: Record<string, string> = {}) =>
      h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(refresh), Origin: origin, ...extra } })
    expect((await from('http://evil.test')).status).toBe(403)
    expect((await from('http://localhost:5174')).status).toBe(403)
    // Sec-Fetch-Site: cross-site is refused unless the Origin is trusted.
    const trusted = await from(SPA, { 'Sec-Fetch-Site': 'cross-site' })
    expect(trusted.status).toBe(200)
    const next = /refresh_token=([^;]+)/.exec(trusted.headers.getSetCookie().join())?.[1] ?? ''
    // publicUrl's origin stays trusted beside the list.
    const own = await h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(next), Origin: 'http://app.test' } })
    expect(own.status).toBe(200)
    const live = /refresh_token=([^;]+)/.exec(own.headers.getSetCookie().join())?.[1] ?? ''
    const crossNoOrigin = await h.request('POST', '/auth/refresh', {
      headers: { ...cookieHeader(live), 'Sec-Fetch-Site': 'cross-site' },
    })
    expect(crossNoOrigin.status).toBe(403)
  })

  it('compares origins as origins: case and a default port do not matter; a path, `null` or garbage is foreign', async () => {
    const h = harness({ trustedOrigins: [SPA] })
    let { refresh } = await h.signup()
    const from = (origin: string) => h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(refresh), Origin: origin } })
    for (const same of ['HTTP://LOCALHOST:5173', 'http://LocalHost:5173', 'HTTP://APP.TEST', 'http://app.test:80']) {
      const res = await from(same)
      expect(res.status, same).toBe(200)
      refresh = /refresh_token=([^;]+)/.exec(res.headers.getSetCookie().join())?.[1] ?? ''
    }
    for (const foreign of [
      'null',
      'http://localhost:5173/',
      'http://localhost:5173/app',
      'http://a@localhost:5173',
      'localhost:5173',
      'https://localhost:5173',
    ])
      expect((await from(foreign)).status, foreign).toBe(403)
  })

  it('refuses at construction an entry that is not an origin, naming it by position', () => {
    for (const bad of ['localhost:5173', 'http://localhost:5173/app', 'not a url', 'null'])
      expect(() => harness({ trustedOrigins: [SPA, bad] })).toThrow(/trustedOrigins\[1\]/)
  })

  it("sets the cookie's SameSite as configured, and refuses None without Secure", async () => {
    const h = harness({
      publicUrl: 'https://api.example.com',
      trustedOrigins: ['https://app.other.example'],
      cookieSameSite: 'None',
    })
    const res = await h.request('POST', '/auth/signup', {
      json: { name: 'N', email: 'n@example.com', password: 'correct horse battery staple' },
    })
    expect(res.headers.getSetCookie().find((line) => line.includes('refresh_token='))).toMatch(
      /^__Secure-refresh_token=.*; Secure; SameSite=None$/,
    )
    expect(() => harness({ cookieSameSite: 'None', secureCookies: false })).toThrow(/cookieSameSite/)
  })
})

describe.each(STORES)('POST /auth/logout with the refresh cookie alone on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const harness = (options: Parameters<typeof makeHarness>[0] = {}) => makeHarness({ store: opened.store, ...options })

  it.skipIf(skip !== null)('deletes that session and clears the cookie; a spent or unknown value is 401', async () => {
    const h = harness()
    const ada = await h.signup()
    const other = await h.login()
    const res = await h.request('POST', '/auth/logout', { headers: cookieHeader(ada.refresh) })
    expect(res.status).toBe(204)
    expect(res.headers.getSetCookie().find((line) => line.includes('refresh_token='))).toMatch(/refresh_token=;.*Max-Age=0/)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })).status).toBe(401)
    const otherToken = ((await other.json()) as { accessToken: string }).accessToken
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(200)
    expect((await h.request('POST', '/auth/logout', { headers: cookieHeader(ada.refresh) })).status).toBe(401)
    expect((await h.request('POST', '/auth/logout', { headers: cookieHeader('A'.repeat(43)) })).status).toBe(401)
    expect((await h.request('POST', '/auth/logout')).status).toBe(401)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'logout')).toEqual([expect.objectContaining({ userId: ada.user.id })])
  })

  it.skipIf(skip !== null)(
    'refuses a rotated (spent) value without ending the session, and a foreign origin with 403',
    async () => {
      const h = harness()
      const ada = await h.signup()
      const rotated = await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })
      const current = /refresh_token=([^;]+)/.exec(rotated.headers.getSetCookie().join())?.[1] ?? ''
      expect((await h.request('POST', '/auth/logout', { headers: cookieHeader(ada.refresh) })).status).toBe(401)
      const foreign = await h.request('POST', '/auth/logout', {
        headers: { ...cookieHeader(current), Origin: 'http://evil.test' },
      })
      expect(foreign.status).toBe(403)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(200)
    },
  )

  it.skipIf(skip !== null)('lets an access credential decide when one is present, even an invalid one', async () => {
    const h = harness()
    const ada = await h.signup()
    const res = await h.request('POST', '/auth/logout', {
      headers: { ...cookieHeader(ada.refresh), Authorization: 'Bearer not.a.token' },
    })
    expect(res.status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(200)
  })
})

describe('auth.optional() and auth.verify()', () => {
  it('sets the user or null, never refuses, and treats an invalid credential as none', async () => {
    const h = harness()
    const ada = await h.signup()
    const app = new Hono()
    app.get('/hello', h.auth.optional(), (c) => {
      const user = c.get('user')
      expectTypeOf(user).toEqualTypeOf<AuthUser<UserRecord> | null>()
      return c.json({ user: user?.email ?? null, session: c.get('sessionId') })
    })
    const hello = async (headers: Record<string, string> = {}) => (await app.request('/hello', { headers })).json()
    expect(await hello()).toEqual({ user: null, session: null })
    expect(await hello(ada.bearer)).toEqual({ user: 'ada@example.com', session: expect.any(String) })
    expect(await hello({ Authorization: 'Bearer forged.token.here' })).toEqual({ user: null, session: null })
    expect(await hello({ Authorization: 'Basic abc' })).toEqual({ user: null, session: null })
    await h.request('POST', '/auth/logout', { headers: ada.bearer })
    expect(await hello(ada.bearer)).toEqual({ user: null, session: null })
  })

  it('verifies a token outside a route: the user and session, or null', async () => {
    const h = harness()
    const ada = await h.signup()
    expect(await h.auth.verify(ada.accessToken)).toEqual({
      user: expect.objectContaining({ id: ada.user.id, email: 'ada@example.com' }),
      sessionId: expect.any(String),
      authenticatedAt: h.clock.now(),
      amr: ['pwd'],
    })
    expect(await h.auth.verify(`${ada.accessToken}x`)).toBeNull()
    const other = createAuth({ secret: `${SECRET}-other`, store: {} as never, sendMail: () => {} })
    expect(await other.verify(ada.accessToken)).toBeNull()
    await other.close()
  })
})
