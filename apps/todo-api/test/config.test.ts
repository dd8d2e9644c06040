/** Start-up refusals: each is a non-zero exit with one line on stderr naming the variable; and the passkey settings PUBLIC_URL gives. */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { passkeySettings } from '../src/passkeys.js'
import { freshDir, randomSecret, runServerToExit, startServer } from './support.js'

const SMTP_URL = 'smtp://127.0.0.1:2525'

const refusal = async (env: Record<string, string>) => {
  const result = await runServerToExit(env)
  expect(result.code, result.stdout).not.toBe(0)
  expect(result.code).not.toBeNull()
  const lines = result.stderr.trim().split('\n')
  expect(lines, result.stderr).toHaveLength(1)
  expect(result.stdout).not.toMatch(/listening/)
  return lines[0] ?? ''
}

// The cases run at once, and some start the server six times: on two busy cores a case can take
// longer than the default 20 s without anything being wrong.
describe.concurrent('start-up configuration', { timeout: 60_000 }, () => {
  it('refuses to start without AUTH_SECRET, naming it', async () => {
    expect(await refusal({ NODE_ENV: 'production', SMTP_URL })).toMatch(/AUTH_SECRET/)
    expect(await refusal({ NODE_ENV: 'development' })).toMatch(/AUTH_SECRET/)
  })

  it('names the weak one of several comma-separated secrets by its position', async () => {
    const line = await refusal({ NODE_ENV: 'production', SMTP_URL, AUTH_SECRET: `${randomSecret()},${'a'.repeat(32)}` })
    expect(line).toMatch(/AUTH_SECRET \(secret 2 of 2\).*entropy/)
    expect(await refusal({ NODE_ENV: 'production', SMTP_URL, AUTH_SECRET: `${randomSecret()},` })).toMatch(/secret 2 of 2.*empty/)
  })

  it('refuses ACCESS_TOKEN_TTL in production and anything but whole seconds', async () => {
    const secret = randomSecret()
    expect(await refusal({ NODE_ENV: 'production', SMTP_URL, AUTH_SECRET: secret, ACCESS_TOKEN_TTL: '5' })).toMatch(
      /ACCESS_TOKEN_TTL.*production/,
    )
    for (const value of ['0', '-1', '1.5', '5s', '100000'])
      expect(await refusal({ NODE_ENV: 'development', AUTH_SECRET: secret, ACCESS_TOKEN_TTL: value })).toMatch(/ACCESS_TOKEN_TTL/)
  })

  it('refuses an AUTH_FRESH_AGE that is not a whole number of seconds', async () => {
    const secret = randomSecret()
    for (const value of ['0', '-1', '1.5', '5m', '1000000'])
      expect(await refusal({ NODE_ENV: 'development', AUTH_SECRET: secret, AUTH_FRESH_AGE: value })).toMatch(/AUTH_FRESH_AGE/)
  })

  it('refuses an AUTH_SECRET shorter than 32 characters', async () => {
    expect(await refusal({ NODE_ENV: 'production', SMTP_URL, AUTH_SECRET: 'x'.repeat(31) })).toMatch(/AUTH_SECRET.*32/)
  })

  it('refuses a 32-character AUTH_SECRET with too little entropy, naming it', async () => {
    expect(await refusal({ NODE_ENV: 'production', SMTP_URL, AUTH_SECRET: 'a'.repeat(32) })).toMatch(/AUTH_SECRET.*entropy/)
  })

  it('refuses production without AUTH_ENCRYPTION_KEY, naming it, and a bad or reused key anywhere', async () => {
    const secret = randomSecret()
    expect(await refusal({ NODE_ENV: 'production', SMTP_URL, AUTH_SECRET: secret })).toMatch(
      /^todo-api: AUTH_ENCRYPTION_KEY is required/,
    )
    expect(await refusal({ SMTP_URL, AUTH_SECRET: secret })).toMatch(/AUTH_ENCRYPTION_KEY is required/)
    expect(await refusal({ NODE_ENV: 'development', AUTH_SECRET: secret, AUTH_ENCRYPTION_KEY: 'k'.repeat(31) })).toMatch(
      /AUTH_ENCRYPTION_KEY.*32/,
    )
    expect(
      await refusal({ NODE_ENV: 'development', AUTH_SECRET: secret, AUTH_ENCRYPTION_KEY: `${randomSecret()},${'a'.repeat(32)}` }),
    ).toMatch(/AUTH_ENCRYPTION_KEY \(key 2 of 2\).*entropy/)
    expect(await refusal({ NODE_ENV: 'development', AUTH_SECRET: secret, AUTH_ENCRYPTION_KEY: secret })).toMatch(
      /AUTH_ENCRYPTION_KEY must not be one of AUTH_SECRET/,
    )
  })

  it('refuses production without SMTP_URL, and NODE_ENV defaults to production', async () => {
    expect(await refusal({ NODE_ENV: 'production', AUTH_SECRET: randomSecret() })).toMatch(/SMTP_URL/)
    expect(await refusal({ AUTH_SECRET: randomSecret() })).toMatch(/SMTP_URL/)
  })

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/todo' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://host:99999/todo' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'not a url' }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example.com' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'maybe' }],
    ['TRUSTED_ORIGINS', { TRUSTED_ORIGINS: 'http://localhost:5173,localhost:5174' }],
    ['TRUSTED_ORIGINS', { TRUSTED_ORIGINS: 'https://app.example.com/path' }],
    ['AUTH_MAX_SESSIONS', { AUTH_MAX_SESSIONS: '0' }],
    ['AUTH_MAX_SESSIONS', { AUTH_MAX_SESSIONS: 'many' }],
  ])('names %s when it is invalid (%o)', async (name, env) => {
    const line = await refusal({
      NODE_ENV: 'production',
      AUTH_SECRET: randomSecret(),
      AUTH_ENCRYPTION_KEY: randomSecret(),
      SMTP_URL,
      ...env,
    })
    expect(line).toContain(name)
  })

  it('names every required variable production lacks, all in one line', async () => {
    const line = await refusal({ NODE_ENV: 'production' })
    expect(line).toMatch(/^todo-api: 3 required variables are unset\. /)
    for (const name of ['AUTH_SECRET', 'SMTP_URL', 'AUTH_ENCRYPTION_KEY']) expect(line).toContain(`${name} is required`)
    const two = await refusal({ NODE_ENV: 'production', AUTH_SECRET: randomSecret() })
    expect(two).toMatch(/^todo-api: 2 required variables are unset\. SMTP_URL is required.*; AUTH_ENCRYPTION_KEY is required/)
  })

  it('refuses a SQLite file in a missing folder in production, naming DATABASE_URL; development creates the folder and says so', async () => {
    const folder = join(freshDir(), 'not', 'there')
    const DATABASE_URL = `file:${join(folder, 'todo.db')}`
    const env = { AUTH_SECRET: randomSecret(), AUTH_ENCRYPTION_KEY: randomSecret(), DATABASE_URL }
    const line = await refusal({ ...env, NODE_ENV: 'production', SMTP_URL })
    expect(line).toMatch(/^todo-api: DATABASE_URL names the SQLite file .*todo\.db, whose folder .* does not exist/)
    expect(line).toContain(folder)
    expect(existsSync(folder)).toBe(false)

    // The default location is created on the first start in production too (a fresh clone has no data/).
    const fresh = freshDir()
    const production = loadConfig({ ...env, DATABASE_URL: undefined, NODE_ENV: 'production', SMTP_URL }, { baseDir: fresh })
    expect(production.notices).toContain(
      `DATABASE_URL: the folder ${join(fresh, 'data')} did not exist; creating it for the SQLite file`,
    )

    const server = await startServer({ env })
    try {
      expect(server.stdout()).toContain(`DATABASE_URL: the folder ${folder} did not exist; creating it for the SQLite file`)
      expect(existsSync(join(folder, 'todo.db'))).toBe(true)
    } finally {
      await server.stop()
    }
  })

  it('names DATABASE_URL, without its password, when PostgreSQL cannot be reached', async () => {
    const line = await refusal({
      NODE_ENV: 'development',
      AUTH_SECRET: randomSecret(),
      DATABASE_URL: 'postgresql://u:secret-pw@127.0.0.1:1/todo',
    })
    expect(line).toMatch(/DATABASE_URL \(postgresql:\/\/u:\*\*\*@127\.0\.0\.1:1\/todo\).*ECONNREFUSED/)
    expect(line).not.toContain('secret-pw')
  })
})

describe('passkeys from PUBLIC_URL and PASSKEY_RP_ID', () => {
  it('derives the relying party from PUBLIC_URL: its host is the rpId, its origin (and trusted ones on that domain) the origins', () => {
    expect(passkeySettings('http://localhost:3000', null)).toEqual({
      passkeys: { rpId: 'localhost', rpName: 'Latchkey Todo', origins: ['http://localhost:3000'] },
      reason: null,
    })
    expect(
      passkeySettings('https://todo.example.com', null, ['https://app.todo.example.com', 'https://other.test']).passkeys,
    ).toEqual({
      rpId: 'todo.example.com',
      rpName: 'Latchkey Todo',
      origins: ['https://todo.example.com', 'https://app.todo.example.com'],
    })
    // PASSKEY_RP_ID: a parent domain, so that passkeys work across its subdomains.
    expect(passkeySettings('https://todo.example.com', 'example.com', ['https://app.example.com']).passkeys).toEqual({
      rpId: 'example.com',
      rpName: 'Latchkey Todo',
      origins: ['https://todo.example.com', 'https://app.example.com'],
    })
  })

  it('leaves passkeys off, with a reason, for an IP-address host or a plain-http one', () => {
    for (const url of ['http://127.0.0.1:3000', 'https://192.0.2.7', 'http://[::1]:3000']) {
      const { passkeys, reason } = passkeySettings(url, null)
      expect(passkeys).toBeNull()
      expect(reason).toMatch(/IP address.*PASSKEY_RP_ID/)
    }
    expect(passkeySettings('http://todo.example.test', null).reason).toMatch(/over https/)
    // An API on an IP address whose front end is on a domain: PASSKEY_RP_ID names that domain.
    expect(passkeySettings('http://10.0.0.5:3000', 'example.com', ['https://app.example.com'])).toEqual({
      passkeys: { rpId: 'example.com', rpName: 'Latchkey Todo', origins: ['https://app.example.com'] },
      reason: null,
    })
  })

  it('reads PASSKEY_RP_ID: a domain, PUBLIC_URL’s host or a parent of it; anything else refuses to start, naming it', async () => {
    const base = { AUTH_SECRET: randomSecret(), NODE_ENV: 'development' }
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://todo.example.com', PASSKEY_RP_ID: 'Example.com' }).passkeyRpId).toBe(
      'example.com',
    )
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://todo.example.com' }).passkeyRpId).toBeNull()
    expect(
      loadConfig({
        ...base,
        PUBLIC_URL: 'http://10.0.0.5',
        TRUSTED_ORIGINS: 'https://app.example.com',
        PASSKEY_RP_ID: 'example.com',
      }).passkeyRpId,
    ).toBe('example.com')
    for (const [env, why] of [
      [{ PASSKEY_RP_ID: 'https://example.com' }, /must be a domain/],
      [{ PASSKEY_RP_ID: '127.0.0.1', PUBLIC_URL: 'http://127.0.0.1:3000' }, /must be a domain/],
      [
        { PASSKEY_RP_ID: 'example.com', PUBLIC_URL: 'https://todo.example.org' },
        /PUBLIC_URL's host \(todo\.example\.org\), a trusted origin's/,
      ],
      [{ PASSKEY_RP_ID: 'example.com' }, /PUBLIC_URL's host \(localhost\)/],
    ] as const)
      expect(() => loadConfig({ ...base, ...env })).toThrow(why)
    expect(await refusal({ ...base, PASSKEY_RP_ID: 'example.com', PUBLIC_URL: 'https://todo.example.org' })).toMatch(
      /^todo-api: PASSKEY_RP_ID/,
    )
  })

  it('serves passkeys on localhost; an IP-address PUBLIC_URL starts without them and says why', async () => {
    const local = await startServer()
    const ip = await startServer({ env: { PUBLIC_URL: 'http://127.0.0.1:9' } })
    try {
      const options = await fetch(`${local.base}/auth/passkeys/login/options`, { method: 'POST' })
      expect(options.status).toBe(200)
      expect(((await options.json()) as { options: { rpId: string } }).options.rpId).toBe('localhost')
      expect((await fetch(`${ip.base}/auth/passkeys/login/options`, { method: 'POST' })).status).toBe(404)
      expect(ip.stderr()).toMatch(/passkeys are off: PUBLIC_URL's host 127\.0\.0\.1 is an IP address/)
      expect(local.stderr()).not.toMatch(/passkeys/)
    } finally {
      await Promise.all([local.stop(), ip.stop()])
    }
  })
})
