/**
 * The operators' API of the reference server over real HTTP, on SQLite and on PostgreSQL
 * (docs/guide/operators.md): an `admin` finds and acts on accounts; a disabled account's tokens die
 * on the next request and its right password gets 403 `account_disabled`; disabling that races a
 * login or a refresh leaves no session; and the CLI disables and enables when no operator can.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Account,
  APP_DIR,
  devMail,
  freshPostgresSchema,
  type PostgresSchema,
  postgresUnreachable,
  type RunningServer,
  request,
  run,
  signup,
  startServer,
} from './support.js'

const unreachable = await postgresUnreachable()
const CLI = join(APP_DIR, 'dist', 'cli.js')
type Json = Record<string, unknown>

describe.each([
  { name: 'sqlite', skip: null },
  { name: 'postgres', skip: unreachable },
])('operators over HTTP on $name', ({ name, skip }) => {
  let server: RunningServer
  let pg: PostgresSchema | undefined
  let databaseUrl: string
  let op: Account
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { DATABASE_URL: databaseUrl } })
  const as = (who: Account) => (method: string, path: string, body?: unknown) =>
    request(server.base, method, `/auth/admin${path}`, { token: who.token, body })
  const login = (who: Account, password = who.password) =>
    request(server.base, 'POST', '/auth/login', { body: { email: who.email, password } })

  beforeAll(async () => {
    if (skip !== null) return
    pg = name === 'postgres' ? await freshPostgresSchema() : undefined
    server = await startServer({ ...(pg ? { env: { DATABASE_URL: pg.url } } : {}), startTimeoutMs: 20_000 })
    databaseUrl = pg ? pg.url : `file:${server.dbPath}`
    op = await signup(server.base, 'Operator')
    const granted = await cli('set-role', op.email, 'admin')
    expect(granted.code, granted.stderr).toBe(0)
  })
  afterAll(async () => {
    await server?.stop()
    await pg?.drop()
  })
  const run_ = it.skipIf(skip !== null)

  run_('searches and shows accounts to an admin only', async () => {
    const ada = await signup(server.base, 'Ada')
    expect((await as(ada)('GET', '/users')).status).toBe(403)
    // A role is compared whole: a list holding it, or another spelling, is not the role.
    for (const role of ['admin,user', 'user,admin', 'Admin', 'administrator']) {
      expect((await cli('set-role', ada.email, role)).code).toBe(0)
      expect((await as(ada)('GET', '/users')).status, role).toBe(403)
    }
    expect((await cli('set-role', ada.email, 'user')).code).toBe(0)
    const found = await as(op)('GET', `/users?query=${ada.email.slice(0, 8).toUpperCase()}`)
    expect(found.status).toBe(200)
    expect((found.body as { users: Json[] }).users.map((u) => u.id)).toEqual([ada.userId])
    const shown = await as(op)('GET', `/users/${ada.userId}`)
    expect(shown.body).toMatchObject({ id: ada.userId, email: ada.email, sessions: 1, disabledAt: null, twoFactor: false })
    expect((await as(op)('GET', '/users?cursor=not-a-cursor')).status).toBe(400)
    expect((await as(op)('GET', `/users?query=${'q'.repeat(10_000)}`)).status).toBe(400)
  })

  run_('disables: tokens die on the next request, the right password gets 403, a wrong one 401; enabling undoes it', async () => {
    const ada = await signup(server.base, 'Ada')
    const disabled = await as(op)('POST', `/users/${ada.userId}/disable`, { reason: 'reported for spam' })
    expect(disabled.status).toBe(204)
    // The audit line follows the answer.
    expect(await server.waitForOutput(/"type":"admin\.user_disabled".*"reason":"reported for spam"/)).toContain(op.userId)
    expect((await request(server.base, 'GET', '/auth/me', { token: ada.token })).status).toBe(401)
    expect((await request(server.base, 'POST', '/auth/refresh', { cookie: ada.refreshCookie })).status).toBe(401)
    const right = await login(ada)
    expect(right.status).toBe(403)
    expect(right.body).toMatchObject({ code: 'account_disabled' })
    expect((await login(ada, 'a wrong passphrase entirely')).status).toBe(401)
    expect((await as(op)('POST', `/users/${ada.userId}/enable`)).status).toBe(204)
    expect((await login(ada)).status).toBe(200)
  })

  run_('signs out everywhere, mails the reset link, marks verified; refuses its own account and other admins', async () => {
    const ada = await signup(server.base, 'Ada')
    expect((await as(op)('DELETE', `/users/${ada.userId}/sessions`)).status).toBe(204)
    expect((await request(server.base, 'GET', '/auth/me', { token: ada.token })).status).toBe(401)
    const reset = await as(op)('POST', `/users/${ada.userId}/send-password-reset`)
    expect(reset.status).toBe(202)
    expect(await devMail(server, 'password reset link', ada.email)).toContain('/reset-password?token=')
    expect((await as(op)('POST', `/users/${ada.userId}/verify-email`)).status).toBe(204)
    expect(((await as(op)('GET', `/users/${ada.userId}`)).body as Json).emailVerified).toBe(true)
    expect((await as(op)('POST', `/users/${op.userId}/disable`, { reason: 'x' })).status).toBe(409)
    const other = await signup(server.base, 'Second')
    expect((await cli('set-role', other.email, 'admin')).code).toBe(0)
    const refused = await as(op)('POST', `/users/${other.userId}/disable`, { reason: 'x' })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ code: 'protected_user' })
  })

  run_('disabling while the user is mid-login or mid-refresh leaves no session and no working token', async () => {
    for (let round = 0; round < 3; round++) {
      const ada = await signup(server.base, 'Ada')
      const [loggedIn, refreshed, disabled] = await Promise.all([
        login(ada),
        request(server.base, 'POST', '/auth/refresh', { cookie: ada.refreshCookie }),
        as(op)('POST', `/users/${ada.userId}/disable`, { reason: 'race' }),
      ])
      expect(disabled.status).toBe(204)
      for (const reply of [loggedIn, refreshed]) {
        expect([200, 401, 403]).toContain(reply.status)
        const token = (reply.body as { accessToken?: string } | null)?.accessToken
        if (token) expect((await request(server.base, 'GET', '/auth/me', { token })).status).toBe(401)
      }
      expect(((await as(op)('GET', `/users/${ada.userId}`)).body as Json).sessions).toBe(0)
      expect((await login(ada)).status).toBe(403)
    }
  })

  run_('the CLI disables and enables an account when no operator can sign in', async () => {
    const ada = await signup(server.base, 'Ada')
    const disabled = await cli('disable', ada.email, 'locked', 'out')
    expect(disabled.code, disabled.stderr).toBe(0)
    expect(disabled.stdout).toContain('"actorId":"cli"')
    expect((await request(server.base, 'GET', '/auth/me', { token: ada.token })).status).toBe(401)
    expect((await login(ada)).status).toBe(403)
    expect((await cli('enable', ada.email)).code).toBe(0)
    expect((await login(ada)).status).toBe(200)
    expect((await cli('disable', 'nobody@example.com', 'x')).code).toBe(1)
    expect((await cli('disable', ada.email)).code).toBe(2)
  })
})
