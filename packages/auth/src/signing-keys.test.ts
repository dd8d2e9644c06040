import { createHmac, createPublicKey } from 'node:crypto'
import { decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { accessTokens } from './access-token.js'
import { createAuth } from './index.js'
import { type ResolvedSigningKey, resolveSigningKeys, type SigningKey } from './signing-keys.js'
import { migrateSqlite, openSqlite, sqliteStore } from './sqlite/index.js'

/** What a token is signed with: its session, and that session's last proof. */
const SIGNED = { sub: 'u1', sid: 's1', authenticatedAt: new Date('2026-11-21T10:00:00.000Z'), amr: ['pwd'] as const }

const SECRET = 'kR7vQ2mX9pL4tW8zN1cB6yH3fJ5dG0sA'
const T0 = new Date('2026-11-21T10:00:00.000Z')
const iat = Math.floor(T0.getTime() / 1000)

const privateJwk = async (alg: 'EdDSA' | 'ES256', kid: string): Promise<SigningKey> => {
  const { privateKey } = await generateKeyPair(alg, { extractable: true })
  return { ...(await exportJWK(privateKey)), kid } as SigningKey
}

const fail = (option: string, why: string): never => {
  throw new TypeError(`createAuth: option \`${option}\` ${why}`)
}
const resolve = (keys: unknown): ResolvedSigningKey[] => resolveSigningKeys(keys, fail)

const tokens = (keys: SigningKey[] | null, secrets = [SECRET]) =>
  accessTokens({
    secrets,
    signingKeys: keys ? resolve(keys) : null,
    issuer: 'latchkey',
    audience: 'latchkey',
    ttlSeconds: 900,
    now: () => T0,
  })

const db = openSqlite(':memory:')
migrateSqlite(db)
const base = { secret: SECRET, store: sqliteStore(db), sendMail: () => {} }

describe('signingKeys are checked at construction, naming the option', async () => {
  const ed = await privateJwk('EdDSA', 'ed-1')
  const es = await privateJwk('ES256', 'es-1')
  const { d: _d, ...edPublic } = ed
  it.each([
    ['an empty list', [], /`signingKeys` must be a non-empty list/],
    ['a key without kid', [{ ...ed, kid: undefined }], /`signingKeys\[0\]` has no `kid`/],
    ['a blank kid', [{ ...ed, kid: ' ' }], /`signingKeys\[0\]` has no `kid`/],
    ['a public key only', [edPublic], /`signingKeys\[0\]` is a public key only/],
    ['an HMAC key', [{ kty: 'oct', k: 'abc', kid: 'h' }], /`signingKeys\[0\]` is a symmetric key/],
    [
      'an RSA key',
      [{ kty: 'RSA', n: 'x', e: 'AQAB', d: 'y', kid: 'r' }],
      /`signingKeys\[0\]` has an unsupported key type or curve/,
    ],
    ['a P-384 key', [{ ...es, crv: 'P-384' }], /`signingKeys\[0\]` has an unsupported key type or curve/],
    ['an alg its curve does not use', [{ ...ed, alg: 'ES256' }], /`signingKeys\[0\]` has alg "ES256"/],
    ['a truncated private key', [{ ...es, d: es.d.slice(1) }], /`signingKeys\[0\]` has a malformed `d`/],
    ['the same kid twice', [ed, { ...es, kid: 'ed-1' }], /`signingKeys\[1\]` repeats the kid "ed-1"/],
    ['the same key under two kids', [ed, { ...ed, kid: 'ed-2' }], /`signingKeys\[1\]` is the same key as an earlier one/],
    ['a key that is not an object', [ed, 'key'], /`signingKeys\[1\]` must be a JWK object/],
  ])('%s', (_, signingKeys, message) => {
    expect(() => createAuth({ ...base, signingKeys } as never)).toThrow(message)
  })

  it('never repeats key material in the message', () => {
    try {
      createAuth({ ...base, signingKeys: [ed, { ...ed, kid: 'again' }] })
      expect.unreachable()
    } catch (err) {
      expect(String(err)).not.toContain(ed.d)
      expect(String(err)).not.toContain(ed.x)
    }
  })
})

describe('access tokens under signingKeys', async () => {
  const ed = await privateJwk('EdDSA', 'ed-1')
  const es = await privateJwk('ES256', 'es-1')
  const next = await privateJwk('EdDSA', 'ed-2')

  it.each([
    ['EdDSA', ed],
    ['ES256', es],
  ] as const)('signs with %s under the first key, named by its kid, and verifies', async (alg, key) => {
    const t = tokens([key, next])
    const token = await t.sign(SIGNED)
    expect(decodeProtectedHeader(token)).toEqual({ alg, typ: 'JWT', kid: key.kid })
    expect(await t.verify(token)).toEqual({ sub: 'u1', sid: 's1' })
  })

  it('a key listed after the first verifies before it signs, and after it stops signing', async () => {
    const before = await tokens([ed, next]).sign(SIGNED)
    const after = await tokens([next, ed]).sign(SIGNED)
    expect(decodeProtectedHeader(after).kid).toBe('ed-2')
    for (const keys of [
      [ed, next],
      [next, ed],
    ]) {
      expect(await tokens(keys).verify(before)).not.toBeNull()
      expect(await tokens(keys).verify(after)).not.toBeNull()
    }
    expect(await tokens([next]).verify(before)).toBeNull()
  })

  it('refuses HS256 tokens once keys are configured, even under the same secret', async () => {
    const hs = await tokens(null).sign(SIGNED)
    expect(await tokens(null).verify(hs)).not.toBeNull()
    expect(await tokens([ed]).verify(hs)).toBeNull()
  })

  it('refuses algorithm confusion: HS256 keyed with the public key, in every encoding, under the key’s kid', async () => {
    const t = tokens([ed, es])
    for (const jwk of [ed, es]) {
      const { d: _d, ...pub } = jwk
      const spki = createPublicKey({ key: pub as JWK & { kty: string }, format: 'jwk' })
      const encodings = [
        Buffer.from(pub.x, 'base64url'),
        Buffer.from(JSON.stringify(pub)),
        Buffer.from(spki.export({ type: 'spki', format: 'pem' }) as string),
        spki.export({ type: 'spki', format: 'der' }),
      ]
      for (const secret of encodings) {
        const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: jwk.kid })).toString('base64url')
        const payload = Buffer.from(
          JSON.stringify({ sub: 'u1', sid: 's1', jti: 'j', iat, exp: iat + 900, iss: 'latchkey', aud: 'latchkey' }),
        ).toString('base64url')
        const mac = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')
        expect(await t.verify(`${header}.${payload}.${mac}`)).toBeNull()
      }
    }
  })

  it('refuses alg none, an unknown kid, a missing kid and a tampered payload', async () => {
    const t = tokens([ed])
    const good = await t.sign(SIGNED)
    const [h, p, s] = good.split('.') as [string, string, string]
    const claims = { sub: 'u1', sid: 's1', jti: 'j', iat, exp: iat + 900, iss: 'latchkey', aud: 'latchkey' }
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'ed-1' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`
    const stranger = await privateJwk('EdDSA', 'ed-1')
    const { d: _d, ...strangerPub } = stranger
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'ed-1' })
      .sign(await importJWK(stranger as unknown as JWK, 'EdDSA'))
    const unknown = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'ed-9' })
      .sign(await importJWK(ed as unknown as JWK, 'EdDSA'))
    const noKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA' })
      .sign(await importJWK(ed as unknown as JWK, 'EdDSA'))
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'u2' })).toString('base64url')}.${s}`
    expect(strangerPub.x).not.toBe(ed.x)
    expect(await t.verify(`${h}.${p}.${s}`)).not.toBeNull()
    for (const token of [none, forged, unknown, noKid, tampered]) expect(await t.verify(token)).toBeNull()
  })
})

describe('GET /.well-known/jwks.json', async () => {
  const ed = await privateJwk('EdDSA', 'ed-1')
  const es = await privateJwk('ES256', 'es-1')

  it('publishes every key, public members only, cacheable for five minutes', async () => {
    const auth = createAuth({ ...base, signingKeys: [ed, es] })
    const res = await auth.wellKnown.request('/.well-known/jwks.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=300')
    const text = await res.text()
    expect(text).not.toContain(ed.d)
    expect(text).not.toContain(es.d)
    expect(JSON.parse(text)).toEqual({
      keys: [
        { kty: 'OKP', crv: 'Ed25519', kid: 'ed-1', alg: 'EdDSA', use: 'sig', x: ed.x },
        { kty: 'EC', crv: 'P-256', kid: 'es-1', alg: 'ES256', use: 'sig', x: es.x, y: es.y },
      ],
    })
  })

  it('publishes an empty set under HS256: a secret is never published', async () => {
    const res = await createAuth(base).wellKnown.request('/.well-known/jwks.json')
    expect(await res.json()).toEqual({ keys: [] })
  })
})
