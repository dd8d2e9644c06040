/**
 * Two reference-server processes, A and B, on one PostgreSQL database (a fresh schema per run):
 * whatever one instance does to users, sessions, refresh values, reset tokens, rate limits and
 * todos, the other sees on its very next request. Also: both migrate at once on first start,
 * `cli set-role` works against PostgreSQL, and SIGTERM closes the pool. Skips, saying why, when
 * PostgreSQL is unreachable (`PG_TEST_URL`, default postgres://postgres@127.0.0.1:5432/test).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { postgresMigrationsFolder } from '@latchkey/auth/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Account,
  APP_DIR,
  cookieFrom,
  freshPostgresSchema,
  type PostgresSchema,
  postgresUnreachable,
  type RunningServer,
  randomSecret,
  request,
  run,
  signup,
  startServer,
  type TodoJson,
} from './support.js'

const unreachable = await postgresUnreachable()

const CLI = join(APP_DIR, 'dist', 'cli.js')
// Lets the test find each instance's connections in pg_stat_activity.
const APP_NAME = { A: `lk-test-a-${process.pid}`, B: `lk-test-b-${process.pid}` }

describe.skipIf(unreachable !== null)('two instances on one PostgreSQL database', () => {
  let db: PostgresSchema
  let a: RunningServer
  let b: RunningServer

  const connections = async (applicationName: string) =>
    Number(
      (
        await db.query<{ n: string }>('select count(*) as n from pg_stat_activity where application_name = $1', [applicationName])
      )[0]?.n,
    )

  beforeAll(async () => {
    db = await freshPostgresSchema()
    const secret = randomSecret()
    const start = (applicationName: string) =>
      startServer({
        env: { DATABASE_URL: `${db.url}&application_name=${applicationName}`, AUTH_SECRET: secret },
        startTimeoutMs: 20_000,
      })
    // Both at once on an empty schema: the migrations run under advisory locks.
    ;[a, b] = await Promise.all([start(APP_NAME.A), start(APP_NAME.B)])
  })

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await db?.drop()
  })

  const login = async (server: RunningServer, email: string, password: string) => {
    const reply = await request(server.base, 'POST', '/auth/login', { body: { email, password } })
    const body = reply.body as { accessToken?: string }
    return { status: reply.status, reply, token: body.accessToken ?? '', cookie: cookieFrom(reply, 'refresh_token') ?? '' }
  }

  const refresh = (server: RunningServer, cookie: string) => request(server.base, 'POST', '/auth/refresh', { cookie })

  const me = async (server: RunningServer, token: string) => (await request(server.base, 'GET', '/auth/me', { token })).status

  it('migrated once although both started at once, and both answer /health', async () => {
    const { entries } = JSON.parse(readFileSync(join(postgresMigrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
      entries: unknown[]
    }
    expect(await db.query('select * from __latchkey_migrations')).toHaveLength(entries.length)
    expect(await db.query('select * from __todo_migrations')).toHaveLength(1)
    for (const server of [a, b]) {
      const health = await request(server.base, 'GET', '/health')
      expect(health.status).toBe(200)
      expect(health.text).toBe('{"status":"ok"}')
    }
  })

  it('accepts on B the access token and refresh cookie of a signup on A', async () => {
    const ada = await signup(a.base, 'Ada')
    const onB = await request(b.base, 'GET', '/auth/me', { token: ada.token })
    expect(onB.status).toBe(200)
    expect(onB.body).toMatchObject({ id: ada.userId, email: ada.email })
    expect((await refresh(b, ada.refreshCookie)).status).toBe(200)
    // The email is taken on both.
    const again = await request(b.base, 'POST', '/auth/signup', { body: { name: 'X', email: ada.email, password: ada.password } })
    expect(again.status).toBe(409)
  })

  it('refuses on B, at the next request, the access token and refresh cookie of a logout on A', async () => {
    const bob = await signup(a.base, 'Bob')
    expect(await me(b, bob.token)).toBe(200)
    expect((await request(a.base, 'POST', '/auth/logout', { token: bob.token })).status).toBe(204)
    expect(await me(b, bob.token)).toBe(401)
    expect((await request(b.base, 'GET', '/todos', { token: bob.token })).status).toBe(401)
    expect((await refresh(b, bob.refreshCookie)).status).toBe(401)
  })

  it('refuses on B a refresh value rotated on A, and the session lives on', async () => {
    const carol = await signup(a.base, 'Carol')
    const rotated = await refresh(a, carol.refreshCookie)
    expect(rotated.status).toBe(200)
    const next = cookieFrom(rotated, 'refresh_token') ?? ''
    expect(next).not.toBe(carol.refreshCookie)

    expect((await refresh(b, carol.refreshCookie)).status).toBe(401)
    // Within the race window the old value is refused without ending the session.
    const onB = await refresh(b, next)
    expect(onB.status).toBe(200)
    expect(await me(a, (onB.body as { accessToken: string }).accessToken)).toBe(200)
    expect((await refresh(a, next)).status).toBe(401)
  })

  it('lets exactly one of 20 concurrent refreshes of one value, split across A and B, win; the session survives', async () => {
    const dan = await signup(b.base, 'Dan')
    const session = await login(a, dan.email, dan.password)
    expect(session.status).toBe(200)
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => refresh(i % 2 === 0 ? a : b, session.cookie)))
    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401)).toHaveLength(19)

    const winner = replies.find((r) => r.status === 200)
    if (!winner) throw new Error('no refresh won')
    const cookie = cookieFrom(winner, 'refresh_token') ?? ''
    // The losers raced inside the grace window: nothing was revoked.
    expect(await me(a, session.token)).toBe(200)
    expect(await me(b, (winner.body as { accessToken: string }).accessToken)).toBe(200)
    expect((await refresh(b, cookie)).status).toBe(200)
  })

  it('counts login attempts for one email across A and B together: 10 wrong, then 429 on either', async () => {
    const email = `limited-${process.pid}@example.com`
    for (let i = 0; i < 10; i++) {
      const attempt = await login(i % 2 === 0 ? a : b, email, `wrong password number ${i}`)
      expect(attempt.status, `attempt ${i + 1}`).toBe(401)
    }
    for (const server of [a, b]) {
      const limited = await login(server, email, 'wrong password again')
      expect(limited.status).toBe(429)
      expect(Number(limited.reply.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // The two refused attempts counted nothing (docs/reference/limits.md#how-a-limit-counts): the row holds the 10 that were let through.
    const [row] = await db.query<{ count: number }>('select count from auth_rate_limits where key = $1', [`login:email:${email}`])
    expect(row?.count).toBe(10)
  })

  it('refuses the right password once the limit is reached, on both instances', async () => {
    const erin = await signup(a.base, 'Erin')
    expect((await login(b, erin.email, erin.password)).status).toBe(200)
    for (let i = 0; i < 9; i++) expect((await login(i % 2 === 0 ? a : b, erin.email, 'not it at all')).status).toBe(401)
    expect((await login(a, erin.email, erin.password)).status).toBe(429)
    expect((await login(b, erin.email, erin.password)).status).toBe(429)
  })

  it('revokes on B the other sessions of a password change on A, and keeps the current one', async () => {
    const fay = await signup(a.base, 'Fay')
    const other = await login(b, fay.email, fay.password)
    expect(other.status).toBe(200)
    const changed = await request(a.base, 'POST', '/auth/change-password', {
      token: fay.token,
      body: { currentPassword: fay.password, newPassword: 'amber orchard ninety gulls' },
    })
    expect(changed.status).toBe(204)
    expect(await me(b, other.token)).toBe(401)
    expect((await refresh(a, other.cookie)).status).toBe(401)
    expect(await me(b, fay.token)).toBe(200)
  })

  it('redeems on B a reset token issued on A, once; every session ends on both', async () => {
    const gus = await signup(a.base, 'Gus')
    const prefix = `http://localhost:${a.port}/reset-password?token=`
    expect((await request(a.base, 'POST', '/auth/forgot-password', { body: { email: gus.email } })).status).toBe(202)
    const line = await a.waitForOutput(new RegExp(prefix.replace(/[.?]/g, '\\$&')))
    const token = new URL(line.slice(line.indexOf(prefix))).searchParams.get('token') ?? ''

    const newPassword = 'copper lantern nineteen owls'
    expect((await request(b.base, 'POST', '/auth/reset-password', { body: { token, newPassword } })).status).toBe(204)
    expect(
      (await request(a.base, 'POST', '/auth/reset-password', { body: { token, newPassword: `x${newPassword}` } })).status,
    ).toBe(400)
    expect(await me(a, gus.token)).toBe(401)
    expect(await me(b, gus.token)).toBe(401)
    expect((await login(a, gus.email, newPassword)).status).toBe(200)
  })

  describe('todos', () => {
    let hal: Account
    let ivy: Account
    beforeAll(async () => {
      ;[hal, ivy] = await Promise.all([signup(a.base, 'Hal'), signup(b.base, 'Ivy')])
    })

    const api = (server: RunningServer, method: string, path: string, who: Account, body?: unknown) =>
      request(server.base, method, path, { token: who.token, body })

    it('shows on B the todos created on A, newest first, and lets B change and delete them', async () => {
      const made: TodoJson[] = []
      for (let i = 0; i < 6; i++) {
        const reply = await api(i % 2 === 0 ? a : b, 'POST', '/todos', hal, { title: `todo ${i}`, done: i % 3 === 0 })
        expect(reply.status).toBe(201)
        made.push(reply.body as TodoJson)
      }
      const onB = await api(b, 'GET', '/todos', hal)
      expect((onB.body as TodoJson[]).map((t) => t.title)).toEqual(made.map((t) => t.title).reverse())
      expect(((await api(a, 'GET', '/todos?done=true&limit=1', hal)).body as TodoJson[]).map((t) => t.title)).toEqual(['todo 3'])

      const [first] = made
      const patched = await api(b, 'PATCH', `/todos/${first?.id}`, hal, { title: 'changed on B' })
      expect(patched.body).toEqual({ ...first, title: 'changed on B' })
      expect((await api(a, 'DELETE', `/todos/${first?.id}`, hal)).status).toBe(204)
      expect((await api(b, 'DELETE', `/todos/${first?.id}`, hal)).status).toBe(404)
    })

    it("answers 404 naming the id on B for another user's todo made on A, and for a malformed id", async () => {
      const secret = (await api(a, 'POST', '/todos', hal, { title: 'hal only' })).body as TodoJson
      expect(((await api(b, 'GET', '/todos?limit=100', ivy)).body as TodoJson[]).some((t) => t.id === secret.id)).toBe(false)
      for (const id of [secret.id, 'not-a-uuid', '01a1fd66-b81f-769d-a62a-c6f129b7fd9b']) {
        for (const reply of [
          await api(b, 'PATCH', `/todos/${id}`, ivy, { done: true }),
          await api(b, 'DELETE', `/todos/${id}`, ivy),
        ]) {
          expect(reply.status).toBe(404)
          expect((reply.body as { detail: string }).detail).toBe(`No todo with id ${id}`)
        }
      }
      expect((await api(a, 'GET', '/todos?limit=100', hal)).body).toContainEqual(secret)
    })
  })

  it('`cli set-role` against PostgreSQL opens the admin route on both instances at the next request', async () => {
    const admin = await signup(b.base, 'Root')
    expect((await request(a.base, 'GET', '/admin/stats', { token: admin.token })).status).toBe(403)

    const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { DATABASE_URL: db.url } })
    const granted = await cli('set-role', admin.email.toUpperCase(), 'admin')
    expect(granted.code, granted.stderr).toBe(0)
    expect((await cli('set-role', 'nobody@example.com', 'admin')).code).toBe(1)

    const [counts] = await db.query<{ users: number; todos: number }>(
      'select (select count(*) from auth_users)::int as users, (select count(*) from todos)::int as todos',
    )
    for (const server of [a, b]) {
      const stats = await request(server.base, 'GET', '/admin/stats', { token: admin.token })
      expect(stats.status).toBe(200)
      expect(stats.body).toEqual(counts)
    }
    expect(counts?.users).toBeGreaterThan(5)
  })

  it('on SIGTERM, A exits 0 and closes its pool while B keeps serving', async () => {
    expect(await connections(APP_NAME.A)).toBeGreaterThan(0)
    expect(await a.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    expect(a.stdout()).toMatch(/^stopped$/m)
    // The server ends a backend a moment after its client hangs up.
    await expect.poll(() => connections(APP_NAME.A), { timeout: 5_000, interval: 50 }).toBe(0)
    expect((await request(b.base, 'GET', '/health')).status).toBe(200)
    expect(await connections(APP_NAME.B)).toBeGreaterThan(0)
  })
})
