/**
 * The verifier against a real key-set server on loopback (node:http), which counts its fetches:
 * every refusal by its code, the bounded refetch on unknown `kid`s, an unreachable key set, the
 * options, and the Hono middleware.
 */
import { createHmac } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Hono } from 'hono'
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { requireAccessToken } from '../src/hono.js'
import { createVerifier, VerifyError, type VerifyErrorCode } from '../src/index.js'

interface Key {
  kid: string
  alg: 'EdDSA' | 'ES256'
  privateKey: CryptoKey
  publicJwk: JWK
}

const newKey = async (kid: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<Key> => {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

/** A key-set server on `port` (any free one by default): serves `published`, counts fetches; `down` answers 500. */
const jwksServer = async (port = 0) => {
  const state = { published: [] as Key[], fetches: 0, down: false }
  const server: Server = createServer((req, res) => {
    state.fetches++
    if (state.down || req.url !== '/.well-known/jwks.json') {
      res.writeHead(state.down ? 500 : 404).end()
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' })
    res.end(JSON.stringify({ keys: state.published.map((k) => k.publicJwk) }))
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const bound = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${bound}/.well-known/jwks.json`
  /** Gone: the port refuses connections, kept-alive ones included. */
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve)
      server.closeAllConnections()
    })
  return { state, url, port: bound, close }
}

const now = () => Math.floor(Date.now() / 1000)
const claims = (over: Record<string, unknown> = {}) => ({
  sub: 'user-1',
  sid: 'session-1',
  jti: crypto.randomUUID(),
  iat: now(),
  exp: now() + 900,
  iss: 'latchkey',
  aud: 'latchkey',
  ...over,
})

const sign = (key: Key, over: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
  new SignJWT(claims(over)).setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid, ...header }).sign(key.privateKey)

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

const refusedWith = async (promise: Promise<unknown>, code: VerifyErrorCode) => {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(VerifyError)
  expect((err as VerifyError).code).toBe(code)
}

const server = await jwksServer()
const current = await newKey('k-1')
const es = await newKey('k-es', 'ES256')
server.state.published = [current, es]
afterAll(() => server.close())

const options = () => ({ jwksUrl: server.url, issuer: 'latchkey', audience: 'latchkey' })

describe('verify()', () => {
  it('returns the typed claims of a valid EdDSA or ES256 token', async () => {
    const verifier = createVerifier(options())
    for (const key of [current, es]) {
      const verified = await verifier.verify(await sign(key, { auth_time: 1_700_000_000, amr: ['pwd', 'otp', 'mfa'] }))
      expect(verified).toMatchObject({
        sub: 'user-1',
        sid: 'session-1',
        iss: 'latchkey',
        amr: ['pwd', 'otp', 'mfa'],
        auth_time: 1_700_000_000,
      })
    }
  })

  it.each<[string, () => Promise<string>, VerifyErrorCode]>([
    [
      'a tampered payload',
      async () => {
        const [h, , s] = (await sign(current)).split('.')
        return `${h}.${b64(claims({ sub: 'admin' }))}.${s}`
      },
      'invalid_signature',
    ],
    ['a token signed by a stranger under a published kid', async () => sign({ ...(await newKey('k-1')) }), 'invalid_signature'],
    ['an expired token', () => sign(current, { iat: now() - 1000, exp: now() - 10 }), 'expired'],
    ['a wrong issuer', () => sign(current, { iss: 'someone-else' }), 'invalid_claims'],
    ['a wrong audience', () => sign(current, { aud: 'another-app' }), 'invalid_claims'],
    ['a token without sid', () => sign(current, { sid: undefined }), 'invalid_claims'],
    ['an amr that is not a list of strings', () => sign(current, { amr: 'pwd' }), 'invalid_claims'],
    ['an unknown kid', async () => sign(await newKey('k-unknown')), 'unknown_key'],
    ['no kid', () => sign(current, {}, { kid: undefined }), 'malformed'],
    ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT', kid: 'k-1' })}.${b64(claims())}.`, 'algorithm_not_allowed'],
    ['not a JWT', async () => 'not.a.jwt', 'malformed'],
  ])('refuses %s', async (_, token, code) => {
    await refusedWith(createVerifier(options()).verify(await token()), code)
  })

  it('refuses HS256 keyed with the public key, in each encoding an attacker might try', async () => {
    const verifier = createVerifier(options())
    for (const key of [current, es]) {
      const secrets = [Buffer.from(key.publicJwk.x as string, 'base64url'), Buffer.from(JSON.stringify(key.publicJwk))]
      for (const secret of secrets) {
        const signingInput = `${b64({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64(claims())}`
        const token = `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`
        await refusedWith(verifier.verify(token), 'algorithm_not_allowed')
      }
    }
  })
})

describe('the key set', () => {
  it('is fetched once for 1,000 tokens with unknown kids, sent at once and one after another', async () => {
    const verifier = createVerifier(options())
    await verifier.verify(await sign(current))
    const before = server.state.fetches
    const stranger = await newKey('k-stranger')
    const forged = await Promise.all(Array.from({ length: 1000 }, (_, i) => sign({ ...stranger, kid: `forged-${i}` })))
    const outcomes: PromiseSettledResult<unknown>[] = await Promise.allSettled(
      forged.slice(0, 500).map((token) => verifier.verify(token)),
    )
    for (const token of forged.slice(500))
      outcomes.push(
        await verifier.verify(token).then(
          () => ({ status: 'fulfilled' as const, value: null }),
          (reason: unknown) => ({ status: 'rejected' as const, reason }),
        ),
      )
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as VerifyError).code === 'unknown_key')).toBe(true)
    // Within the cooldown (30 s) nothing is fetched again; the first unknown kid after a fetch
    // older than it may fetch once.
    expect(server.state.fetches - before).toBeLessThanOrEqual(1)
  })

  it('is fetched again on an unknown kid once the cooldown has passed, and then knows the new key', async () => {
    const verifier = createVerifier({ ...options(), cooldown: 0.2 })
    await verifier.verify(await sign(current))
    const next = await newKey('k-next')
    server.state.published = [current, es, next]
    try {
      const before = server.state.fetches
      await new Promise((resolve) => setTimeout(resolve, 300))
      const tokens = await Promise.all(Array.from({ length: 50 }, () => sign(next)))
      const verified = await Promise.all(tokens.map((token) => verifier.verify(token)))
      expect(verified.every((c) => c.sub === 'user-1')).toBe(true)
      expect(server.state.fetches - before).toBe(1)
    } finally {
      server.state.published = [current, es]
    }
  })

  it('while it cannot be fetched: jwks_unavailable (503), at most one fetch per backoff, then recovers', async () => {
    const verifier = createVerifier(options())
    const token = await sign(current)
    server.state.down = true
    try {
      const before = server.state.fetches
      const outcomes = await Promise.allSettled(Array.from({ length: 200 }, () => verifier.verify(token)))
      for (const o of outcomes) {
        expect(o.status).toBe('rejected')
        expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'jwks_unavailable', status: 503 })
      }
      for (let i = 0; i < 200; i++) await refusedWith(verifier.verify(token), 'jwks_unavailable')
      expect(server.state.fetches - before).toBe(1)
    } finally {
      server.state.down = false
    }
    expect((await createVerifier(options()).verify(token)).sub).toBe('user-1')
  })
})

describe('an outage of the key set', () => {
  it('refuses only the forged kids: tokens of keys it holds keep verifying, past cacheMaxAge too; an unknown kid after it is fetched', async () => {
    // The clock is frozen and moved by hand; the key-set server and its fetches are real.
    const start = Date.now()
    vi.useFakeTimers({ toFake: ['Date'], now: start })
    const own = await jwksServer()
    own.state.published = [current]
    let back: Awaited<ReturnType<typeof jwksServer>> | undefined
    try {
      const verifier = createVerifier({ jwksUrl: own.url, issuer: 'latchkey', audience: 'latchkey' })
      const genuine = await sign(current, { exp: now() + 3600 })
      expect((await verifier.verify(genuine)).sub).toBe('user-1')
      await own.close()
      const stranger = await newKey('k-stranger')
      // Ten minutes of outage, past the cooldown (30 s) and cacheMaxAge (300 s): a forged kid
      // every 5 s (each one may fetch, and fails), a genuine token every second.
      let verified = 0
      for (let second = 0; second < 600; second++) {
        vi.setSystemTime(start + (31 + second) * 1000)
        if (second % 5 === 0)
          await refusedWith(verifier.verify(await sign({ ...stranger, kid: `forged-${second}` })), 'jwks_unavailable')
        if ((await verifier.verify(genuine)).sub === 'user-1') verified++
      }
      expect(verified).toBe(600)
      // The key set is back with a new key: the first token naming it fetches it.
      back = await jwksServer(own.port)
      const next = await newKey('k-after')
      back.state.published = [current, next]
      vi.setSystemTime(start + 640 * 1000)
      expect((await verifier.verify(await sign(next, { exp: now() + 900 }))).sub).toBe('user-1')
      expect(back.state.fetches).toBeGreaterThanOrEqual(1)
    } finally {
      vi.useRealTimers()
      await back?.close()
    }
  })
})

describe('createVerifier refuses bad options, naming the option', () => {
  it.each([
    [{ jwksUrl: 'not a url' }, /`jwksUrl` must be an absolute URL/],
    [{ jwksUrl: 'http://auth.example.com/.well-known/jwks.json' }, /`jwksUrl` must use https/],
    [{ jwksUrl: 42 }, /`jwksUrl` must be an absolute URL/],
    [{ issuer: '' }, /`issuer` is required/],
    [{ audience: undefined }, /`audience` is required/],
    [{ cooldown: -1 }, /`cooldown` must be a non-negative number/],
    [{ cacheMaxAge: Number.NaN }, /`cacheMaxAge` must be a non-negative number/],
  ])('%o', (change, message) => {
    expect(() => createVerifier({ ...options(), ...change } as never)).toThrow(message)
  })

  it('accepts https anywhere and plain http to loopback', () => {
    for (const jwksUrl of ['https://auth.example.com/.well-known/jwks.json', 'http://localhost:3000/x', 'http://[::1]:3000/x'])
      expect(() => createVerifier({ ...options(), jwksUrl })).not.toThrow()
  })
})

describe('requireAccessToken (Hono)', () => {
  const app = new Hono()
  app.get('/whoami', requireAccessToken(createVerifier(options())), (c) =>
    c.json({ sub: c.get('claims').sub, sid: c.get('claims').sid }),
  )

  it('hands the claims to the handler', async () => {
    const res = await app.request('/whoami', { headers: { Authorization: `Bearer ${await sign(current)}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ sub: 'user-1', sid: 'session-1' })
  })

  it('answers 401 problem documents: Bearer without a token, invalid_token with a bad one', async () => {
    const none = await app.request('/whoami')
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    expect(none.headers.get('content-type')).toBe('application/problem+json')
    expect(await none.json()).toMatchObject({ status: 401, code: 'missing_token' })
    for (const authorization of ['Basic dXNlcjpwYXNz', `Bearer ${await sign(current, { exp: now() - 5, iat: now() - 100 })}`]) {
      const bad = await app.request('/whoami', { headers: { Authorization: authorization } })
      expect(bad.status).toBe(401)
      expect(bad.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
    }
  })
})
