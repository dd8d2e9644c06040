import { describe, expect, it } from 'vitest'
import { cookieHeader, harness, refreshCookie } from '../../test/harness.js'

describe('POST /auth/logout', () => {
  it('logout deletes only this session: its cookie and tokens stop working, other sessions go on', async () => {
    const h = harness()
    const first = await h.signup()
    const second = await h.login()
    const secondToken = ((await second.json()) as { accessToken: string }).accessToken
    const res = await h.request('POST', '/auth/logout', { headers: first.bearer })
    expect(res.status).toBe(204)
    expect(refreshCookie(res)).toBe('')
    expect(res.headers.getSetCookie().join('')).toMatch(/Max-Age=0; Path=\/auth/)
    expect((await h.request('GET', '/auth/me', { headers: first.bearer })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(first.refresh) })).status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${secondToken}` } })).status).toBe(200)
    expect((await h.request('POST', '/auth/logout')).status).toBe(401)
  })
})
