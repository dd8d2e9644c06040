import { describe, expect, it } from 'vitest'
import { harness } from '../../test/harness.js'

describe('GET /auth/me', () => {
  it('returns the signed-in user and nothing more', async () => {
    const h = harness()
    const { bearer, user } = await h.signup()
    const res = await h.request('GET', '/auth/me', { headers: bearer })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      id: user.id,
      name: 'Ada',
      email: 'ada@example.com',
      emailVerified: false,
      createdAt: '2026-11-21T10:00:00.000Z',
    })
    expect((await h.request('GET', '/auth/me')).status).toBe(401)
  })
})
