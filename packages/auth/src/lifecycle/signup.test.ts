import { describe, expect, it } from 'vitest'
import { harness, PASSWORD, refreshCookie } from '../../test/harness.js'

describe('POST /auth/signup', () => {
  it('creates the account: 201 AuthResult, a refresh cookie, nothing secret in the body', async () => {
    const h = harness()
    const res = await h.request('POST', '/auth/signup', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD } })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const text = await res.text()
    const body = JSON.parse(text)
    expect(body).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
      user: {
        id: expect.any(String),
        name: 'Ada',
        email: 'ada@example.com',
        emailVerified: false,
        createdAt: '2026-11-21T10:00:00.000Z',
      },
    })
    expect(text).not.toMatch(/\$fast\$|\$argon2|password/i)
    const setCookie = res.headers
      .getSetCookie()
      .filter((line) => line.startsWith('refresh_token='))
      .join('\n')
    expect(setCookie).toMatch(
      /^refresh_token=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{65}; Max-Age=2592000; Path=\/auth; HttpOnly; SameSite=Strict$/,
    )
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${body.accessToken}` } })).status).toBe(200)
  })

  it('stores the email trimmed, NFKC-normalised and lower-cased, and refuses it again in any case with 409', async () => {
    const h = harness()
    const first = await h.signup('  Ａda@Example.COM ')
    expect(first.user.email).toBe('ada@example.com')
    const res = await h.request('POST', '/auth/signup', { json: { name: 'Ada', email: 'ADA@example.com', password: PASSWORD } })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ status: 409, type: 'urn:latchkey:problem:email-taken' })
    expect((await h.counts())?.users).toBe(1)
  })

  it.each([
    ['a short password', { password: 'short7!' }, 'password'],
    ['a password over 256 code points', { password: 'x'.repeat(257) }, 'password'],
    ['a common password', { password: 'password123' }, 'password'],
    ['a common password in another case', { password: 'PassWord123' }, 'password'],
    ['the email as password', { password: 'Ada.Lovelace@Example.com' }, 'password'],
    ['the local part as password', { password: 'ADA.LOVELACE' }, 'password'],
    ['an invalid email', { email: 'not-an-email' }, 'email'],
    ['an email over 254 characters', { email: `${'a'.repeat(250)}@x.io` }, 'email'],
    ['an empty name', { name: '' }, 'name'],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 'name'],
    ['a missing name', { name: undefined }, 'name'],
    ['a number for a password', { password: 12345678 }, 'password'],
  ])('refuses %s with 400 and an errors[] entry, creating nothing', async (_, change, path) => {
    const h = harness()
    const json = { name: 'Ada', email: 'ada.lovelace@example.com', password: PASSWORD, ...change }
    const res = await h.request('POST', '/auth/signup', { json })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const body = (await res.json()) as { status: number; errors: { path: string }[] }
    expect(body.status).toBe(400)
    expect(body.errors.map((e) => e.path)).toContain(path)
    expect((await h.counts())?.users).toBe(0)
    expect(refreshCookie(res)).toBeUndefined()
  })

  it('counts password length in code points, and does not trim passwords', async () => {
    const h = harness()
    const emoji = '🔑🗝️🔒🔓🛡️⚔️🏰🐉'
    expect([...emoji].length).toBeGreaterThanOrEqual(8)
    expect(
      (await h.request('POST', '/auth/signup', { json: { name: 'E', email: 'e@example.com', password: emoji } })).status,
    ).toBe(201)
    expect(
      (await h.request('POST', '/auth/signup', { json: { name: 'F', email: 'f@example.com', password: '🔑🔑🔑🔑' } })).status,
    ).toBe(400)
    await h.signup('space@example.com', '  spaced out passphrase  ')
    expect((await h.login('space@example.com', 'spaced out passphrase')).status).toBe(401)
    expect((await h.login('space@example.com', '  spaced out passphrase  ')).status).toBe(200)
  })

  it('normalises passwords with NFKC before hashing', async () => {
    const h = harness()
    await h.signup('nfkc@example.com', 'ﬁne ﬁsh ﬁnd ﬁns')
    expect((await h.login('nfkc@example.com', 'fine fish find fins')).status).toBe(200)
  })

  it('answers malformed JSON, a wrong content type and an oversized body with problem documents', async () => {
    const h = harness()
    const malformed = await h.request('POST', '/auth/signup', {
      body: '{"name":',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ status: 400 })
    const text = await h.request('POST', '/auth/signup', { body: 'name=a', headers: { 'Content-Type': 'text/plain' } })
    expect(text.status).toBe(415)
    const big = JSON.stringify({ name: 'x'.repeat(70_000), email: 'a@example.com', password: PASSWORD })
    const huge = await h.request('POST', '/auth/signup', { body: big, headers: { 'Content-Type': 'text/plain' } })
    expect(huge.status).toBe(413)
    expect(huge.headers.get('content-type')).toBe('application/problem+json')
    expect((await h.counts())?.users).toBe(0)
  })
})
