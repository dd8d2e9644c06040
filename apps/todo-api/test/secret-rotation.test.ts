/**
 * Rotating AUTH_SECRET signs nobody out (docs/reference/operations.md#rotating-the-secret), tried as an operator does it: restart
 * the server with the new secret first and the old one after it, then, once the old tokens have
 * expired, without the old one.
 */
import { afterEach, expect, it } from 'vitest'
import { type RunningServer, randomSecret, request, signup, startServer } from './support.js'

/** The protected header of a JWT: its first segment. */
const headerOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: unknown }

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()))
})

const start = async (secret: string, databaseUrl?: string) => {
  const server = await startServer({ env: { AUTH_SECRET: secret, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } })
  running.push(server)
  return server
}

it('accepts the tokens of the old secret after a restart with "new,old", and refuses them once it is removed', async () => {
  const [oldSecret, newSecret] = [randomSecret(), randomSecret()]
  const first = await start(oldSecret)
  const database = `file:${first.dbPath}`
  const account = await signup(first.base)
  const oldKid = headerOf(account.token).kid
  await first.stop()

  const rotated = await start(`${newSecret},${oldSecret}`, database)
  expect((await request(rotated.base, 'GET', '/auth/me', { token: account.token })).status).toBe(200)
  const login = await request(rotated.base, 'POST', '/auth/login', { body: { email: account.email, password: account.password } })
  const fresh = (login.body as { accessToken: string }).accessToken
  const newKid = headerOf(fresh).kid
  expect(typeof newKid).toBe('string')
  expect(newKid).not.toBe(oldKid)
  expect(`${oldSecret}${newSecret}`).not.toContain(String(newKid))
  await rotated.stop()

  const retired = await start(newSecret, database)
  expect((await request(retired.base, 'GET', '/auth/me', { token: fresh })).status).toBe(200)
  const refused = await request(retired.base, 'GET', '/auth/me', { token: account.token })
  expect(refused.status).toBe(401)
  expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
})
