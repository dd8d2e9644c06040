import { describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD, refreshCookie } from '../../test/harness.js'

describe('POST /auth/change-password', () => {
  it('replaces the password, keeps the current session and revokes every other one', async () => {
    const h = harness()
    const current = await h.signup()
    const other = await h.login()
    const otherToken = ((await other.json()) as { accessToken: string }).accessToken
    const res = await h.request('POST', '/auth/change-password', {
      headers: current.bearer,
      json: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
    })
    expect(res.status).toBe(204)
    expect((await h.request('GET', '/auth/me', { headers: current.bearer })).status).toBe(200)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current.refresh) })).status).toBe(200)
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(refreshCookie(other) as string) })).status).toBe(401)
    expect((await h.login('ada@example.com', PASSWORD)).status).toBe(401)
    expect((await h.login('ada@example.com', 'a brand new passphrase')).status).toBe(200)
  })

  it('answers 400 for a wrong current password and a refused new one, changing nothing', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    const other = await h.login()
    const otherToken = ((await other.json()) as { accessToken: string }).accessToken
    for (const json of [
      { currentPassword: 'not my password', newPassword: 'a brand new passphrase' },
      { currentPassword: PASSWORD, newPassword: 'iloveyou' },
      { currentPassword: PASSWORD, newPassword: 'ada@example.com' },
      { currentPassword: PASSWORD, newPassword: 'short' },
      { currentPassword: PASSWORD },
    ]) {
      const res = await h.request('POST', '/auth/change-password', { headers: bearer, json })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { errors: unknown[] }).errors.length).toBeGreaterThan(0)
    }
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(200)
    expect((await h.login()).status).toBe(200)
  })

  it('requires a signed-in user', async () => {
    const h = harness()
    const res = await h.request('POST', '/auth/change-password', {
      json: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
    })
    expect(res.status).toBe(401)
  })
})
