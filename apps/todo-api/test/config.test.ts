/** Start-up refusals: each is a non-zero exit with one line on stderr naming the variable. */
import { describe, expect, it } from 'vitest'
import { randomSecret, runServerToExit } from './support.js'

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

describe.concurrent('start-up configuration', () => {
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
