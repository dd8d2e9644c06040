import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createAuth, secretWeakness } from './index.js'
import { migrateSqlite, openSqlite, sqliteStore } from './sqlite/index.js'

const db = openSqlite(':memory:')
migrateSqlite(db)
const base = { secret: 'kR7vQ2mX9pL4tW8zN1cB6yH3fJ5dG0sA', store: sqliteStore(db), sendMail: () => {} }
const ENC = 'Zq8wE3rT6yU1iO4pA7sD0fG2hJ5kL9xC'

describe('createAuth refuses bad options at construction, naming the option', () => {
  it.each([
    ['a missing secret', { secret: undefined }, /`secret` is required.*AUTH_SECRET/],
    ['an empty secret', { secret: '' }, /`secret` is required/],
    ['a 31-character secret', { secret: 's'.repeat(31) }, /`secret` must be at least 32 characters/],
    ['32 times the same character (RFC 8725 §3.5)', { secret: 'a'.repeat(32) }, /`secret` has too little entropy/],
    ['a short pattern repeated', { secret: 'password'.repeat(4) }, /`secret` has too little entropy/],
    ['four characters spread over 32', { secret: `${'abcd'.repeat(7)}dcba` }, /`secret` has too little entropy/],
    ['an empty list of secrets', { secret: [] }, /`secret` is required/],
    ['a weak second secret', { secret: [base.secret, 'password'.repeat(4)] }, /`secret\[1\]` has too little entropy/],
    ['a short first secret', { secret: ['s'.repeat(31), base.secret] }, /`secret\[0\]` must be at least 32 characters/],
    ['a secret that is not a string', { secret: [base.secret, 42] }, /`secret\[1\]` must be a string/],
    ['the same secret twice', { secret: [base.secret, base.secret] }, /`secret\[1\]` repeats an earlier secret/],
    ['a short encryption key', { encryptionKeys: 'e'.repeat(31) }, /`encryptionKeys` must be at least 32 characters/],
    [
      'a weak second encryption key',
      { encryptionKeys: [ENC, 'password'.repeat(4)] },
      /`encryptionKeys\[1\]` has too little entropy/,
    ],
    ['an empty list of encryption keys', { encryptionKeys: [] }, /`encryptionKeys` must be a key/],
    [
      'an encryption key that is a signing secret',
      { encryptionKeys: [ENC, base.secret] },
      /`encryptionKeys\[1\]` must not be one of the signing secrets/,
    ],
    ['the same encryption key twice', { encryptionKeys: [ENC, ENC] }, /`encryptionKeys\[1\]` repeats an earlier key/],
    ['a missing store', { store: undefined }, /`store` is required/],
    ['a missing sendMail', { sendMail: undefined }, /`sendMail` is required/],
    ['argon2 memory below 19456 KiB', { argon2: { memoryCost: 19455 } }, /`argon2.memoryCost`/],
    ['argon2 time cost below 2', { argon2: { timeCost: 1 } }, /`argon2.timeCost`/],
    ['argon2 parallelism below 1', { argon2: { parallelism: 0 } }, /`argon2.parallelism`/],
    ['a policy that is not a function', { policies: { admin: 'yes' } }, /`policies.admin`/],
    ['a relative publicUrl', { publicUrl: '/app' }, /`publicUrl`/],
    ['a zero access token lifetime', { accessTokenTtl: 0 }, /`accessTokenTtl`/],
    ['a zero rate limit', { rateLimit: { ip: { max: 0, windowSeconds: 60 } } }, /`rateLimit.ip.max`/],
  ])('%s', (_, change, message) => {
    expect(() => createAuth({ ...base, ...change } as never)).toThrow(message)
  })

  it('accepts random secrets, down to the 128 bits of openssl rand -hex 16', () => {
    for (let i = 0; i < 200; i++)
      for (const secret of [
        randomBytes(16).toString('hex'),
        randomBytes(24).toString('base64'),
        randomBytes(32).toString('base64url'),
      ])
        expect(secretWeakness(secret)).toBeNull()
  })

  it('accepts the minimum and stronger argon2 parameters', () => {
    expect(() => createAuth({ ...base, argon2: { memoryCost: 65536, timeCost: 3, parallelism: 4 } })).not.toThrow()
  })

  it('refuses a guard that names an unregistered policy when the route is wired, not on the first request', () => {
    const auth = createAuth({ ...base, policies: { admin: () => true } })
    expect(() => auth.guard('admin')).not.toThrow()
    expect(() => (auth.guard as (name: string) => unknown)('root')).toThrow(/`root`/)
  })
})

describe('the client address on runtimes other than Node (docs/reference/limits.md#client-address)', () => {
  /** Runs `f` as if on a runtime that defines `global` (Bun, Deno). */
  const pretending = <T>(global: 'Bun' | 'Deno', f: () => T): T => {
    const g = globalThis as Record<string, unknown>
    g[global] = {}
    try {
      return f()
    } finally {
      delete g[global]
    }
  }

  it.each([
    ['Bun', 'hono/bun'],
    ['Deno', 'hono/deno'],
  ] as const)('refuses to start on %s with neither getConnInfo nor trustProxy, naming %s', (runtime, adapter) => {
    expect(() => pretending(runtime, () => createAuth(base))).toThrow(
      new RegExp(`\`getConnInfo\` is required on ${runtime}.*'${adapter}'`),
    )
    expect(() => pretending(runtime, () => createAuth({ ...base, trustProxy: true }))).not.toThrow()
  })

  it("counts each client by the adapter's getConnInfo, so one client's 429 is not another's", async () => {
    const auth = pretending('Bun', () =>
      createAuth({
        ...base,
        getConnInfo: (c) => ({ remote: { address: c.req.header('x-test-peer') } }),
        rateLimit: { ip: { max: 2, windowSeconds: 900 } },
      }),
    )
    const login = (peer: string, i: number) =>
      auth.routes.request('/forgot-password', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test-peer': peer },
        body: JSON.stringify({ email: `someone-${i}@example.com` }),
      })
    expect((await Promise.all([1, 2, 3].map((i) => login('192.0.2.1', i)))).map((r) => r.status)).toEqual([202, 202, 429])
    expect((await login('192.0.2.2', 4)).status).toBe(202)
    await auth.close()
  })

  it('refuses a getConnInfo that is not a function', () => {
    expect(() => createAuth({ ...base, getConnInfo: 'bun' as never })).toThrow(/`getConnInfo` must be a function/)
  })
})
