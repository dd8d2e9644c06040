/**
 * Every endpoint that verifies a password is limited per user and per address (docs/reference/limits.md#rate-limits):
 * a 15-minute access token is not unlimited password guessing.
 */
import { describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'

const change = (h: ReturnType<typeof harness>, bearer: Record<string, string>, currentPassword: string, ip?: string) =>
  h.request('POST', '/auth/change-password', {
    headers: bearer,
    json: { currentPassword, newPassword: 'silver harbour seventy foxes' },
    ...(ip ? { ip } : {}),
  })

describe('password checks of signed-in users', () => {
  it('answers the 11th change-password of a user within 15 minutes with 429, even with the right password, from any address', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    for (let i = 0; i < 10; i++) expect((await change(h, bearer, `wrong guess ${i}`, `198.51.100.${i}`)).status).toBe(400)
    const limited = await change(h, bearer, PASSWORD, '198.51.100.99')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('content-type')).toBe('application/problem+json')
    // Another user is not limited by it.
    const bob = await h.signup('bob@example.com')
    expect((await change(h, bob.bearer, PASSWORD)).status).toBe(204)
    // After the window the user may try again (with a fresh access token: the old one expired too).
    h.clock.advance(15 * 60 * 1000)
    const login = (await (await h.login()).json()) as { accessToken: string }
    expect((await change(h, { Authorization: `Bearer ${login.accessToken}` }, PASSWORD)).status).toBe(204)
  })

  it('limits per address too, and an anonymous caller gets 401 before any limit', async () => {
    const h = harness({ rateLimit: { ip: { max: 3, windowSeconds: 900 } } })
    const users = []
    for (const [i, n] of ['a', 'b', 'c', 'd'].entries()) {
      const res = await h.request('POST', '/auth/signup', {
        json: { name: n, email: `${n}@example.com`, password: PASSWORD },
        ip: `203.0.113.${i + 10}`,
      })
      const { accessToken } = (await res.json()) as { accessToken: string }
      users.push({ bearer: { Authorization: `Bearer ${accessToken}` } })
    }
    const statuses = []
    for (const user of users) statuses.push((await change(h, user.bearer, 'wrong guess', '192.0.2.9')).status)
    expect(statuses).toEqual([400, 400, 400, 429])
    for (let i = 0; i < 5; i++)
      expect(
        (await h.request('POST', '/auth/change-password', { json: { currentPassword: 'x', newPassword: 'y' }, ip: '192.0.2.9' }))
          .status,
      ).toBe(401)
  })
})
