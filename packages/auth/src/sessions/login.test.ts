import { describe, expect, it, vi } from 'vitest'
import { harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { argon2Hasher } from '../password.js'
import { fastHasher } from '../testing/index.js'

describe('POST /auth/login', () => {
  it('signs in: 200 AuthResult and a refresh cookie', async () => {
    const h = harness()
    await h.signup()
    const res = await h.login(' ADA@example.com ')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.json()).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, user: { email: 'ada@example.com' } })
    expect(refreshCookie(res)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{65}$/,
    )
  })

  it('answers a wrong password and an unknown email with the same status, headers and bytes', async () => {
    const h = harness()
    await h.signup()
    const wrong = await h.login('ada@example.com', 'not the password at all')
    const unknown = await h.login('nobody@example.com', PASSWORD)
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(await wrong.text()).toBe(await unknown.text())
    expect([...wrong.headers].sort()).toEqual([...unknown.headers].sort())
    expect(refreshCookie(wrong)).toBeUndefined()
  })

  it('runs exactly one password verification per attempt, against a decoy when the email is unknown', async () => {
    const hasher = fastHasher()
    const verify = vi.spyOn(hasher, 'verify')
    const h = harness({ hasher })
    await h.signup()
    const stored = (await h.store.findUserByEmail('ada@example.com'))?.passwordHash

    for (const [email, password, expected] of [
      ['ada@example.com', PASSWORD, 200],
      ['ada@example.com', 'wrong password here', 401],
      ['ghost@example.com', PASSWORD, 401],
    ] as const) {
      verify.mockClear()
      expect((await h.login(email, password)).status).toBe(expected)
      expect(verify).toHaveBeenCalledTimes(1)
      const [hashUsed] = verify.mock.calls[0] as [string, string]
      if (email === 'ghost@example.com') {
        expect(hashUsed).not.toBe(stored)
        expect(hashUsed).toMatch(/^\$fast\$/)
      } else expect(hashUsed).toBe(stored)
    }
  })

  it('re-hashes a stored hash made with weaker argon2 parameters at the next successful login', async () => {
    const h = harness({ hasher: argon2Hasher({ memoryCost: 19456, timeCost: 2, parallelism: 1 }) })
    await h.signup()
    const weak = argon2Hasher({ memoryCost: 8192, timeCost: 1, parallelism: 1 })
    const user = (await h.store.findUserByEmail('ada@example.com'))?.user
    await h.store.updatePasswordHash(user?.id ?? '', await weak.hash(PASSWORD), 0)
    expect((await h.login()).status).toBe(200)
    const after = (await h.store.findUserByEmail('ada@example.com'))?.passwordHash
    expect(after).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect((await h.login()).status).toBe(200)
  })

  it('limits attempts per email across rotating IPs: the 11th gets 429 with Retry-After, even with the right password', async () => {
    const h = harness()
    await h.signup()
    for (let i = 0; i < 10; i++)
      expect((await h.login('ada@example.com', 'wrong password here', `198.51.100.${i}`)).status).toBe(401)
    const limited = await h.login('ada@example.com', PASSWORD, '198.51.100.99')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('900')
    expect(limited.headers.get('ratelimit-policy')).toBe(
      '"login-ip";q=100;w=900, "login-email";q=10;w=900, "login-device";q=10;w=900',
    )
    expect(limited.headers.get('ratelimit')).toBe('"login-email";r=0;t=900')
    expect(await limited.json()).toMatchObject({ status: 429 })
    // Other emails from those IPs are unaffected; the window ends on time.
    expect((await h.login('other@example.com', PASSWORD, '198.51.100.1')).status).toBe(401)
    h.clock.advance(15 * 60 * 1000)
    expect((await h.login('ada@example.com', PASSWORD, '198.51.100.99')).status).toBe(200)
  })

  it('limits attempts per IP across rotating emails, counting unknown emails and invalid bodies the same', async () => {
    const h = harness()
    for (let i = 0; i < 98; i++) expect((await h.login(`user${i}@example.com`, PASSWORD, '192.0.2.1')).status).toBe(401)
    expect((await h.request('POST', '/auth/login', { json: { email: 'x' }, ip: '192.0.2.1' })).status).toBe(400)
    expect(
      (await h.request('POST', '/auth/login', { body: '{', headers: { 'Content-Type': 'application/json' }, ip: '192.0.2.1' }))
        .status,
    ).toBe(400)
    const limited = await h.login('fresh@example.com', PASSWORD, '192.0.2.1')
    expect(limited.status).toBe(429)
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(limited.headers.get('ratelimit')).toBe(`"login-ip";r=0;t=${retryAfter}`)
    expect((await h.login('fresh@example.com', PASSWORD, '192.0.2.2')).status).toBe(401)
  })

  it('keys the limit on the right-most X-Forwarded-For entry: spoofed left entries do not rotate it', async () => {
    const h = harness({ rateLimit: { ip: { max: 3, windowSeconds: 60 } } })
    for (let i = 0; i < 3; i++)
      await h.request('POST', '/auth/login', {
        json: { email: `a${i}@x.io`, password: 'p' },
        headers: { 'X-Forwarded-For': `10.0.0.${i}, 192.0.2.9` },
      })
    const res = await h.request('POST', '/auth/login', {
      json: { email: 'z@x.io', password: 'p' },
      headers: { 'X-Forwarded-For': '10.9.9.9, 192.0.2.9' },
    })
    expect(res.status).toBe(429)
  })

  it('ignores X-Forwarded-For entirely unless trustProxy is set', async () => {
    const h = harness({ trustProxy: false, rateLimit: { ip: { max: 2, windowSeconds: 60 } } })
    for (let i = 0; i < 2; i++) await h.login(`a${i}@x.io`, 'p', `10.0.0.${i}`)
    expect((await h.login('b@x.io', 'p', '10.0.0.77')).status).toBe(429)
  })
})
