import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { harness, SECRET, T0 } from '../test/harness.js'
import { keyIdOf } from './access-token.js'

const key = new TextEncoder().encode(SECRET)
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
const iat = Math.floor(T0.getTime() / 1000)

/** A token with the right shape, for the attacker to vary one thing at a time. */
const forge = (
  claims: Record<string, unknown>,
  opts: { alg?: string; key?: Uint8Array; kid?: unknown; exp?: number | null; iss?: string; aud?: string } = {},
) => {
  // The right `kid` unless the attack is on the kid: each forgery varies one thing.
  const kid = 'kid' in opts ? opts.kid : keyIdOf(SECRET)
  let jwt = new SignJWT({ jti: 'j', ...claims })
    .setProtectedHeader({ alg: opts.alg ?? 'HS256', ...(kid === undefined ? {} : { kid: kid as string }) })
    .setIssuedAt(iat)
    .setIssuer(opts.iss ?? 'latchkey')
    .setAudience(opts.aud ?? 'latchkey')
  if (opts.exp !== null) jwt = jwt.setExpirationTime(opts.exp ?? iat + 900)
  return jwt.sign(opts.key ?? key)
}

const expectRefused = async (res: Response) => {
  expect(res.status).toBe(401)
  expect(res.headers.get('content-type')).toBe('application/problem+json')
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
  const body = (await res.json()) as { status: number; type: string }
  expect(body.status).toBe(401)
}

describe('guard: forged and tampered access tokens', () => {
  it('accepts the genuine token', async () => {
    const h = harness()
    const { bearer, user } = await h.signup()
    const res = await h.request('GET', '/private', { headers: bearer })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: user.id, role: null })
  })

  it('refuses alg none, other algorithms, a wrong secret, wrong iss/aud, missing or past exp, and tampering', async () => {
    const h = harness()
    const { accessToken } = await h.signup()
    const { sub, sid } = decodeJwt(accessToken) as { sub: string; sid: string }
    const [header, payload, signature] = accessToken.split('.') as [string, string, string]
    const { privateKey } = await generateKeyPair('RS256')

    const attacks: Record<string, string> = {
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'alg none with signature': `${b64({ alg: 'none' })}.${payload}.${signature}`,
      HS512: await forge({ sub, sid }, { alg: 'HS512' }),
      RS256: await new SignJWT({ sub, sid, jti: 'j' })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuedAt(iat)
        .setIssuer('latchkey')
        .setAudience('latchkey')
        .setExpirationTime(iat + 900)
        .sign(privateKey),
      'wrong secret': await forge({ sub, sid }, { key: new TextEncoder().encode('x'.repeat(48)) }),
      'wrong iss': await forge({ sub, sid }, { iss: 'evil' }),
      'wrong aud': await forge({ sub, sid }, { aud: 'other-app' }),
      'missing exp': await forge({ sub, sid }, { exp: null }),
      expired: await forge({ sub, sid }, { exp: iat - 1 }),
      'missing sid': await forge({ sub }),
      'tampered sub': `${header}.${b64({ ...decodeJwt(accessToken), sub: 'someone-else' })}.${signature}`,
      'tampered header': `${b64({ alg: 'HS256', typ: 'JWT', kid: 'x' })}.${payload}.${signature}`,
      garbage: 'not-a-jwt',
      empty: '',
    }
    for (const [name, token] of Object.entries(attacks)) {
      const res = await h.request('GET', '/private', { headers: { Authorization: `Bearer ${token}` } })
      expect(res.status, name).toBe(401)
    }
    await expectRefused(await h.request('GET', '/private', { headers: { Authorization: `Bearer ${attacks.HS512}` } }))
    // The genuine token still works after all that.
    expect((await h.request('GET', '/private', { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(200)
  })

  it('refuses a token once its clock time has passed', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    h.clock.advance(15 * 60 * 1000)
    await expectRefused(await h.request('GET', '/private', { headers: bearer }))
  })

  it('refuses a token it already accepted once its clock time has passed (verified tokens are remembered)', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    expect((await h.request('GET', '/private', { headers: bearer })).status).toBe(200)
    h.clock.advance(15 * 60 * 1000 - 1000)
    expect((await h.request('GET', '/private', { headers: bearer })).status).toBe(200)
    h.clock.advance(1000)
    await expectRefused(await h.request('GET', '/private', { headers: bearer }))
  })

  it('refuses a correctly signed token whose session was revoked (logout) on the very next request', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    expect((await h.request('POST', '/auth/logout', { headers: bearer })).status).toBe(204)
    await expectRefused(await h.request('GET', '/private', { headers: bearer }))
  })

  it('refuses a valid signature over a session id that belongs to another user', async () => {
    const h = harness()
    const ada = await h.signup('ada@example.com')
    const bob = await h.signup('bob@example.com')
    const { sid } = decodeJwt(bob.accessToken) as { sid: string }
    await expectRefused(
      await h.request('GET', '/private', { headers: { Authorization: `Bearer ${await forge({ sub: ada.user.id, sid })}` } }),
    )
  })
})

describe('guard: secrets that rotate (kid)', () => {
  const OLD = 'old-secret-3f9Kq7ZpXw2LmV8nTb4Rc6Yd1Hs5Gj0E'
  const NEW = 'new-secret-Q8wE3rT6yU1iO4pA7sD0fG2hJ5kL9zXc'

  it('signs with the first secret and names it in kid, which is not the secret', async () => {
    const h = harness({ secret: [NEW, OLD] })
    const { accessToken } = await h.signup()
    const { kid } = decodeProtectedHeader(accessToken)
    expect(kid).toBe(keyIdOf(NEW))
    expect(typeof kid === 'string' && kid.length).toBe(16)
    expect(NEW).not.toContain(kid as string)
    expect(kid).not.toBe(keyIdOf(OLD))
  })

  it('accepts a token of every listed secret, so rotating one signs nobody out', async () => {
    const h = harness({ secret: [NEW, OLD] })
    const { sub, sid } = decodeJwt((await h.signup()).accessToken) as { sub: string; sid: string }
    const byOld = await forge({ sub, sid }, { key: new TextEncoder().encode(OLD), kid: keyIdOf(OLD) })
    const byNew = await forge({ sub, sid }, { key: new TextEncoder().encode(NEW), kid: keyIdOf(NEW) })
    for (const token of [byOld, byNew])
      expect((await h.request('GET', '/private', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200)
  })

  it('refuses a token without kid, with a kid that is not a string or names no listed secret, or of a removed secret', async () => {
    const h = harness({ secret: [NEW] })
    const { sub, sid } = decodeJwt((await h.signup()).accessToken) as { sub: string; sid: string }
    const newKey = new TextEncoder().encode(NEW)
    const attacks = {
      'no kid': await forge({ sub, sid }, { key: newKey, kid: undefined }),
      'kid a number': await forge({ sub, sid }, { key: newKey, kid: 7 }),
      'kid an object': await forge({ sub, sid }, { key: newKey, kid: { id: keyIdOf(NEW) } }),
      'unknown kid': await forge({ sub, sid }, { key: newKey, kid: 'AAAAAAAAAAAAAAAA' }),
      'kid of another secret, signed by it': await forge({ sub, sid }, { key: new TextEncoder().encode(OLD), kid: keyIdOf(OLD) }),
      'right kid, signed by another secret': await forge({ sub, sid }, { key: new TextEncoder().encode(OLD), kid: keyIdOf(NEW) }),
    }
    for (const [name, token] of Object.entries(attacks)) {
      const res = await h.request('GET', '/private', { headers: { Authorization: `Bearer ${token}` } })
      expect(res.status, name).toBe(401)
      expect(res.headers.get('www-authenticate'), name).toBe('Bearer error="invalid_token"')
    }
  })
})

describe('guard: where the credential comes from', () => {
  it('answers 401 with a plain Bearer challenge and a problem document when nothing is sent', async () => {
    const h = harness()
    const res = await h.request('GET', '/private')
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Bearer')
    expect(await res.json()).toMatchObject({ status: 401, title: 'Unauthorized' })
  })

  it('reads the token cookie and the access_token query parameter', async () => {
    const h = harness()
    const { accessToken } = await h.signup()
    expect((await h.request('GET', '/private', { headers: { Cookie: `token=${accessToken}` } })).status).toBe(200)
    const viaQuery = await h.request('GET', `/private?access_token=${accessToken}`)
    expect(viaQuery.status).toBe(200)
    expect(viaQuery.headers.get('cache-control')).toBe('no-store')
    expect(viaQuery.headers.get('referrer-policy')).toBe('no-referrer')
  })

  it('uses the first credential PRESENT: an invalid header is not rescued by a valid cookie or query', async () => {
    const h = harness()
    const { accessToken } = await h.signup()
    const valid = { Cookie: `token=${accessToken}` }
    await expectRefused(
      await h.request('GET', `/private?access_token=${accessToken}`, { headers: { Authorization: 'Bearer nope', ...valid } }),
    )
    await expectRefused(
      await h.request('GET', `/private?access_token=${accessToken}`, { headers: { Authorization: `Basic ${btoa('a:b')}` } }),
    )
    await expectRefused(await h.request('GET', `/private?access_token=${accessToken}`, { headers: { Cookie: 'token=nope' } }))
  })

  it('treats a repeated access_token parameter or two token cookies as invalid', async () => {
    const h = harness()
    const { accessToken } = await h.signup()
    await expectRefused(await h.request('GET', `/private?access_token=${accessToken}&access_token=${accessToken}`))
    await expectRefused(await h.request('GET', '/private', { headers: { Cookie: `token=${accessToken}; token=${accessToken}` } }))
    await expectRefused(await h.request('GET', '/private?access_token='))
  })

  it('refuses a cookie-borne credential on an unsafe method from a foreign Origin or a cross-site fetch', async () => {
    const h = harness()
    const { accessToken } = await h.signup()
    const cookie = { Cookie: `token=${accessToken}` }
    expect((await h.request('POST', '/private', { headers: { ...cookie, Origin: 'http://app.test' } })).status).toBe(200)
    expect((await h.request('POST', '/private', { headers: cookie })).status).toBe(200)
    for (const headers of [{ Origin: 'http://evil.test' }, { Origin: 'null' }, { 'Sec-Fetch-Site': 'cross-site' }] as Record<
      string,
      string
    >[]) {
      const res = await h.request('POST', '/private', { headers: { ...cookie, ...headers } })
      expect(res.status).toBe(403)
      expect(await res.json()).toMatchObject({ status: 403 })
    }
    // A safe method, and a bearer header, are not cookie-borne CSRF.
    expect((await h.request('GET', '/private', { headers: { ...cookie, Origin: 'http://evil.test' } })).status).toBe(200)
    const viaHeader = { Authorization: `Bearer ${accessToken}`, Origin: 'http://evil.test' }
    expect((await h.request('POST', '/private', { headers: viaHeader })).status).toBe(200)
  })
})

describe('guard: policies', () => {
  it('runs a named policy against the user as stored now: a role change applies on the next request', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    const denied = await h.request('GET', '/admin', { headers: bearer })
    expect(denied.status).toBe(403)
    expect(denied.headers.get('content-type')).toBe('application/problem+json')
    await h.store.setRole('ada@example.com', 'admin')
    expect((await h.request('GET', '/admin', { headers: bearer })).status).toBe(200)
    expect((await h.request('GET', '/admin')).status).toBe(401)
  })

  it('gives a policy the request, so it can compare a path id with the user', async () => {
    const h = harness()
    const { bearer, user } = await h.signup()
    expect((await h.request('GET', `/users/${user.id}`, { headers: bearer })).status).toBe(200)
    expect((await h.request('GET', '/users/someone-else', { headers: bearer })).status).toBe(403)
  })

  it('turns a throwing policy into 403 and logs it', async () => {
    const h = harness()
    const { bearer } = await h.signup()
    expect((await h.request('GET', '/broken', { headers: bearer })).status).toBe(403)
    // By name only: a policy's error may carry what a database error carries (parameters).
    expect(h.logs.join('\n')).toContain('policy "broken" threw: Error')
    expect(h.logs.join('\n')).not.toContain('policy exploded')
  })

  it('refuses at wiring time a guard naming an unregistered policy', () => {
    const h = harness()
    // @ts-expect-error -- the compiler refuses unknown names; this checks the runtime too.
    expect(() => h.auth.guard('admn')).toThrow(/admn/)
  })
})
