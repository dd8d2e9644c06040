/**
 * Tokens other services can verify, against the real server: AUTH_SIGNING_KEYS, the published
 * key set, HS256 refused once keys are configured, `@latchkey/verify` trusting a token from a
 * sign-in and refusing forgeries, the rotation of docs/guide/rotating-keys.md#rotating-signing-keys with no
 * live token refused anywhere, the key generator, and the one-line refusals of bad keys.
 */
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createVerifier, type Verifier, VerifyError } from '@latchkey/verify'
import { decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { type RunningServer, randomSecret, request, run, runServerToExit, signup, startServer } from './support.js'

type PrivateJwk = JWK & { kid: string; d: string; x: string }

const newKey = async (kid: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<PrivateJwk> => {
  const { privateKey } = await generateKeyPair(alg, { extractable: true })
  return { ...(await exportJWK(privateKey)), kid } as PrivateJwk
}
const publicOf = ({ d: _d, ...pub }: PrivateJwk) => pub

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()))
})

const start = async (keys: PrivateJwk[] | null, opts: { secret?: string; databaseUrl?: string } = {}) => {
  const server = await startServer({
    env: {
      AUTH_SECRET: opts.secret ?? randomSecret(),
      ...(keys ? { AUTH_SIGNING_KEYS: JSON.stringify(keys) } : {}),
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    },
  })
  running.push(server)
  return server
}

const verifierOf = (server: RunningServer, options: { cacheMaxAge?: number } = {}) =>
  createVerifier({ jwksUrl: `${server.base}/.well-known/jwks.json`, issuer: 'latchkey', audience: 'latchkey', ...options })

const refusalOf = (verifier: Verifier, token: string) =>
  verifier.verify(token).then(
    () => null,
    (err: unknown) => (err instanceof VerifyError ? err.code : String(err)),
  )

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('a server with AUTH_SIGNING_KEYS', () => {
  it('publishes the public keys at /.well-known/jwks.json, cacheable, and documents the route', async () => {
    const [ed, es] = [await newKey('ed-1'), await newKey('es-1', 'ES256')]
    const server = await start([ed, es])
    const jwks = await request(server.base, 'GET', '/.well-known/jwks.json')
    expect(jwks.status).toBe(200)
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300')
    expect(jwks.text).not.toContain(ed.d)
    expect(jwks.text).not.toContain(es.d)
    expect(jwks.body).toEqual({
      keys: [
        { ...publicOf(ed), alg: 'EdDSA', use: 'sig' },
        { ...publicOf(es), alg: 'ES256', use: 'sig' },
      ],
    })
    const doc = (await request(server.base, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> }
    expect(doc.paths['/.well-known/jwks.json']).toHaveProperty('get.operationId', 'getJwks')
  })

  it('signs with the first key; @latchkey/verify trusts a token from a sign-in and refuses forgeries', async () => {
    const key = await newKey('ed-1')
    const server = await start([key])
    const account = await signup(server.base)
    expect(decodeProtectedHeader(account.token)).toMatchObject({ alg: 'EdDSA', kid: 'ed-1' })
    const verifier = verifierOf(server)
    expect(await verifier.verify(account.token)).toMatchObject({ sub: account.userId, iss: 'latchkey', aud: 'latchkey' })
    const login = await request(server.base, 'POST', '/auth/login', {
      body: { email: account.email, password: account.password },
    })
    const fromLogin = (login.body as { accessToken: string }).accessToken
    expect(await verifier.verify(fromLogin)).toMatchObject({ sub: account.userId, sid: expect.any(String) })

    const claims = JSON.parse(Buffer.from(account.token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >
    const signed = async (over: Record<string, unknown>, jwk: PrivateJwk = key) =>
      new SignJWT({ ...claims, ...over }).setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid }).sign(await importJWK(jwk, 'EdDSA'))
    const [h, p, s] = account.token.split('.') as [string, string, string]
    const hs256 = (secret: Buffer) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${p}`
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
    }
    const forgeries: [string, string, string][] = [
      ['tampered', `${h}.${b64({ ...claims, sub: 'someone-else' })}.${s}`, 'invalid_signature'],
      ['expired', await signed({ iat: (claims.iat as number) - 2000, exp: (claims.iat as number) - 1000 }), 'expired'],
      ['wrong iss', await signed({ iss: 'evil' }), 'invalid_claims'],
      ['wrong aud', await signed({ aud: 'evil' }), 'invalid_claims'],
      ['unknown kid', await signed({}, await newKey('ed-stranger')), 'unknown_key'],
      ['alg none', `${b64({ alg: 'none', kid: key.kid })}.${p}.`, 'algorithm_not_allowed'],
      ['HS256 keyed with the raw public key', hs256(Buffer.from(key.x, 'base64url')), 'algorithm_not_allowed'],
      ['HS256 keyed with the published JWK', hs256(Buffer.from(JSON.stringify(publicOf(key)))), 'algorithm_not_allowed'],
    ]
    for (const [what, token, code] of forgeries) {
      expect(await refusalOf(verifier, token), what).toBe(code)
      // The server refuses it too (expired, wrong iss/aud and the rest: 401 before the session is looked up).
      expect((await request(server.base, 'GET', '/auth/me', { token })).status, what).toBe(401)
    }
    // Nothing the server wrote holds the private key or a token.
    const output = server.stdout() + server.stderr()
    expect(output).not.toContain(key.d)
    expect(output).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+/)
  })

  it('refuses HS256 tokens once keys are configured, even under the same AUTH_SECRET', async () => {
    const secret = randomSecret()
    const hs = await start(null, { secret })
    const databaseUrl = `file:${hs.dbPath}`
    const account = await signup(hs.base)
    expect(decodeProtectedHeader(account.token).alg).toBe('HS256')
    expect((await request(hs.base, 'GET', '/.well-known/jwks.json')).body).toEqual({ keys: [] })
    await hs.stop()
    const keyed = await start([await newKey('ed-1')], { secret, databaseUrl })
    expect((await request(keyed.base, 'GET', '/auth/me', { token: account.token })).status).toBe(401)
    expect(await refusalOf(verifierOf(keyed), account.token)).toBe('algorithm_not_allowed')
  })

  it('rotates as the rotating-keys guide says, refusing no live token at the server or at the verifier', async () => {
    const [old, next] = [await newKey('2026-01'), await newKey('2026-02')]
    const secret = randomSecret()
    // The key set at one address across the restarts, as behind a load balancer.
    let current: RunningServer | undefined
    const front = createServer((req, res) => {
      void fetch(`${current?.base}${req.url}`).then(async (answer) => {
        res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(await answer.text())
      })
    })
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
    const jwksUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/.well-known/jwks.json`
    const restart = async (keys: PrivateJwk[]) => {
      await current?.stop()
      current = await start(keys, { secret, ...(current ? { databaseUrl: `file:${current.dbPath}` } : {}) })
      return current
    }
    try {
      // One verifier for the whole rotation, keeping the set one second (standing in for the
      // published five minutes) with the default 30-second cooldown on unknown kids; and one that
      // keeps it the default five minutes, to show what the wait of step 1 is for.
      const verifier = createVerifier({ jwksUrl, issuer: 'latchkey', audience: 'latchkey', cacheMaxAge: 1 })
      const impatient = createVerifier({ jwksUrl, issuer: 'latchkey', audience: 'latchkey' })
      const first = await restart([old])
      const live: string[] = [(await signup(first.base)).token]
      expect(await refusalOf(impatient, live[0] ?? '')).toBeNull()
      const refusals: string[] = []
      const checkAll = async (step: string) => {
        for (const token of live) {
          const status = (await request(current?.base ?? '', 'GET', '/auth/me', { token })).status
          if (status !== 200) refusals.push(`${step}: the server answered ${status}`)
          const code = await refusalOf(verifier, token)
          if (code !== null) refusals.push(`${step}: the verifier refused (${code})`)
        }
      }
      await checkAll('before')

      // 1. Publish the next key after the signing one; wait until every verifier has fetched it.
      const published = await restart([old, next])
      const kids = ((await request(published.base, 'GET', '/.well-known/jwks.json')).body as { keys: { kid: string }[] }).keys
      expect(kids.map((k) => k.kid)).toEqual(['2026-01', '2026-02'])
      live.push((await signup(published.base)).token)
      expect(decodeProtectedHeader(live.at(-1) ?? '').kid).toBe('2026-01')
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await checkAll('published, the set fetched again')

      // 2. Move it first: it signs, the old one still verifies.
      const switched = await restart([next, old])
      live.push((await signup(switched.base)).token)
      expect(decodeProtectedHeader(live.at(-1) ?? '').kid).toBe('2026-02')
      await checkAll('switched')
      // A verifier that still holds the set from before step 1, fetched within its cooldown,
      // refuses the new kid: why step 1 waits for every verifier to fetch the set.
      expect(await refusalOf(impatient, live.at(-1) ?? '')).toBe('unknown_key')

      // 3. Once the old key's tokens have expired (a token lifetime later), drop it.
      await restart([next])
      live.splice(0, live.length, ...live.filter((token) => decodeProtectedHeader(token).kid === '2026-02'))
      await checkAll('dropped')
      expect(refusals).toEqual([])
      expect(live).toHaveLength(1)
    } finally {
      front.close()
    }
  })
})

describe('AUTH_SIGNING_KEYS and the key generator', () => {
  it.each(['EdDSA', 'ES256'])('cli keys generate --alg %s prints a key the server signs with', async (alg) => {
    const generated = await run(process.execPath, [
      '--import',
      'tsx',
      '--conditions=@latchkey/source',
      'src/cli.ts',
      'keys',
      'generate',
      '--alg',
      alg,
    ])
    expect(generated.code).toBe(0)
    const jwk = JSON.parse(generated.stdout) as PrivateJwk
    expect(jwk).toMatchObject({
      alg,
      use: 'sig',
      kid: expect.stringMatching(/^\d{4}-\d{2}-\d{2}-[\w-]{8}$/),
      d: expect.any(String),
    })
    const server = await start([jwk])
    const account = await signup(server.base)
    expect(decodeProtectedHeader(account.token)).toMatchObject({ alg, kid: jwk.kid })
  })

  it('refuses a bad value at start with one line naming AUTH_SIGNING_KEYS, without key material', async () => {
    const key = await newKey('ed-1')
    const cases: [string, RegExp][] = [
      ['{"kty":', /AUTH_SIGNING_KEYS must be a JSON array.*not valid JSON/],
      ['[]', /AUTH_SIGNING_KEYS must be a JSON array/],
      [JSON.stringify([{ ...key, kid: undefined }]), /AUTH_SIGNING_KEYS \(key 1 of 1\) has no `kid`/],
      [JSON.stringify([publicOf(key)]), /AUTH_SIGNING_KEYS \(key 1 of 1\) is a public key only/],
      [JSON.stringify([key, { ...(await newKey('x')), kid: 'ed-1' }]), /AUTH_SIGNING_KEYS \(key 2 of 2\) repeats the kid "ed-1"/],
      [JSON.stringify([{ ...key, crv: 'X25519' }]), /AUTH_SIGNING_KEYS \(key 1 of 1\) has an unsupported key type or curve/],
      [JSON.stringify([{ ...key, x: (await newKey('y', 'ES256')).x }]), /AUTH_SIGNING_KEYS \(key 1 of 1\) is not a valid key/],
    ]
    for (const [value, message] of cases) {
      const exit = await runServerToExit({ AUTH_SECRET: randomSecret(), AUTH_SIGNING_KEYS: value, NODE_ENV: 'development' })
      expect(exit.code, value).not.toBe(0)
      const lines = exit.stderr.trim().split('\n')
      expect(lines, exit.stderr).toHaveLength(1)
      expect(lines[0]).toMatch(message)
      expect(exit.stderr).not.toContain(key.d)
    }
  })
})
