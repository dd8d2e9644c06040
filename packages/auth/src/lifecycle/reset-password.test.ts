import { describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD } from '../../test/harness.js'

const NEW = 'reset to something new'

describe('POST /auth/reset-password', () => {
  const withToken = async (overrides: Parameters<typeof harness>[0] = {}) => {
    const h = harness(overrides)
    const session = await h.signup()
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    await h.auth.settled()
    return { h, session, token: h.mails.at(-1)?.token as string }
  }

  it('redeems once: replaces the password and revokes every session', async () => {
    const { h, session, token } = await withToken()
    const res = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: NEW } })
    expect(res.status).toBe(204)
    expect((await h.request('GET', '/auth/me', { headers: session.bearer })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(session.refresh) })).status).toBe(401)
    expect((await h.login('ada@example.com', PASSWORD)).status).toBe(401)
    expect((await h.login('ada@example.com', NEW)).status).toBe(200)
    const again = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'yet another passphrase' } })
    expect(again.status).toBe(400)
    expect((await h.login('ada@example.com', NEW)).status).toBe(200)
  })

  it('gives invalid, used and expired tokens the same 400', async () => {
    const { h, token } = await withToken()
    const bodies: string[] = []
    const forged = await h.request('POST', '/auth/reset-password', { json: { token: 'x'.repeat(43), newPassword: NEW } })
    bodies.push(await forged.text())
    h.clock.advance(30 * 60 * 1000)
    const expired = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: NEW } })
    expect([forged.status, expired.status]).toEqual([400, 400])
    bodies.push(await expired.text())
    expect(new Set(bodies).size).toBe(1)
    expect(JSON.parse(bodies[0] as string)).toMatchObject({ type: 'urn:latchkey:problem:invalid-reset-token' })
  })

  it('does not spend the token when the new password is refused', async () => {
    const { h, token } = await withToken()
    for (const newPassword of ['password1', 'ada@example.com', 'short'])
      expect((await h.request('POST', '/auth/reset-password', { json: { token, newPassword } })).status).toBe(400)
    expect((await h.request('POST', '/auth/reset-password', { json: { token, newPassword: NEW } })).status).toBe(204)
  })

  it('lets exactly one of 20 concurrent redemptions of one token win, and that password is the one set', async () => {
    // All 20 count against the owner's email; the limit is raised so the race itself is under test.
    const { h, token } = await withToken({ rateLimit: { email: { max: 100, windowSeconds: 900 } } })
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.request('POST', '/auth/reset-password', {
          json: { token, newPassword: `concurrent passphrase ${i}` },
          ip: `192.0.2.${i}`,
        }),
      ),
    )
    const winners = results.map((r, i) => (r.status === 204 ? i : -1)).filter((i) => i >= 0)
    expect(winners).toHaveLength(1)
    expect(results.filter((r) => r.status === 400)).toHaveLength(19)
    expect((await h.login('ada@example.com', `concurrent passphrase ${winners[0]}`)).status).toBe(200)
  })

  it('rate-limits reset attempts on the email of the token owner', async () => {
    const { h, token } = await withToken()
    for (let i = 0; i < 10; i++)
      expect(
        (await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'short' }, ip: `192.0.2.${i}` })).status,
      ).toBe(400)
    const limited = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: NEW }, ip: '192.0.2.200' })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('900')
  })
})
