/**
 * API keys in the reference server over real HTTP, on SQLite and PostgreSQL
 * (docs/guide/api-keys.md): `todos:read` and `todos:write` on the todo routes, a key never a
 * session, the acting user always the key's owner, bad bearer values answered 4xx, the key never
 * in a log line or a database column in clear, and the races "revoke while in use" and "two
 * creations at the 50-key limit".
 */
import { connect } from 'node:net'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Account,
  freshPostgresSchema,
  type PostgresSchema,
  postgresUnreachable,
  type RunningServer,
  request,
  signup,
  startServer,
  verifyByDevMail,
} from './support.js'

const unreachable = await postgresUnreachable()

interface Created {
  id: string
  key: string
  prefix: string
  scopes: string[]
}

/** The status of one raw request whose Authorization header is `value` as bytes (fetch refuses a NUL before sending it). */
const rawAuthorization = (base: string, value: string) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(base)
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.end(`GET /todos HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${value}\r\nConnection: close\r\n\r\n`, 'latin1')
    })
    let head = ''
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1')
    })
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)))
    socket.on('error', reject)
  })

interface Started {
  server: RunningServer
  /** Every row of `auth_api_keys`, as JSON text. */
  columns(): Promise<string>
  /** Writes `n` live keys of the user straight into the database. */
  seed(userId: string, n: number): Promise<void>
}

const scenario = (name: string, start: () => Promise<Started>) =>
  describe(`API keys in the reference server on ${name}`, () => {
    let server: RunningServer
    let columns: Started['columns']
    let seed: Started['seed']
    let ada: Account
    const shown: string[] = []

    beforeAll(async () => {
      ;({ server, columns, seed } = await start())
      ada = await signup(server.base)
      await verifyByDevMail(server, ada.email, ada.password)
    }, 30_000)
    afterAll(async () => {
      await server?.stop()
    })

    const create = async (body: unknown, token = ada.token) => request(server.base, 'POST', '/auth/api-keys', { token, body })
    const newKey = async (scopes: string[], account = ada) => {
      const reply = await create({ name: `key ${shown.length}`, scopes }, account.token)
      expect(reply.status).toBe(201)
      const created = reply.body as Created
      shown.push(created.key)
      return created
    }

    it('reads with todos:read, writes with todos:write, always as the key’s owner', async () => {
      const reader = await newKey(['todos:read'])
      const writer = await newKey(['todos:write', 'todos:read'])
      const bob = await signup(server.base, 'Bob')
      const made = await request(server.base, 'POST', '/todos', {
        token: writer.key,
        body: { title: 'by key', userId: bob.userId },
        headers: { 'x-user-id': bob.userId },
      })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({ userId: ada.userId, title: 'by key' })

      const list = await request(server.base, 'GET', `/todos?limit=5&userId=${bob.userId}`, { token: reader.key })
      expect(list.status).toBe(200)
      expect(list.body).toMatchObject([{ userId: ada.userId, title: 'by key' }])
      const fast = await request(server.base, 'GET', '/todos', { token: reader.key })
      expect(fast.status).toBe(200)

      const denied = await request(server.base, 'POST', '/todos', { token: reader.key, body: { title: 'no' } })
      expect(denied.status).toBe(403)
      expect(denied.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="todos:write"')
      expect(denied.body).toMatchObject({ code: 'insufficient_scope' })
      const id = (made.body as { id: string }).id
      expect((await request(server.base, 'PATCH', `/todos/${id}`, { token: reader.key, body: { done: true } })).status).toBe(403)
      expect((await request(server.base, 'DELETE', `/todos/${id}`, { token: reader.key })).status).toBe(403)
      expect((await request(server.base, 'DELETE', `/todos/${id}`, { token: writer.key })).status).toBe(204)
      expect((await request(server.base, 'GET', '/admin/stats', { token: reader.key })).status).toBe(403)
    })

    it('is never a session: /auth answers 403 session_required but GET /auth/me', async () => {
      const { key } = await newKey(['todos:read', 'todos:write'])
      expect((await request(server.base, 'GET', '/auth/me', { token: key })).body).toMatchObject({ id: ada.userId })
      for (const [method, path, body] of [
        ['POST', '/auth/api-keys', { name: 'x', scopes: ['todos:read'] }],
        ['GET', '/auth/api-keys', undefined],
        ['GET', '/auth/sessions', undefined],
        ['POST', '/auth/delete-account', { currentPassword: ada.password }],
      ] as const) {
        const reply = await request(server.base, method, path, { token: key, ...(body ? { body } : {}) })
        expect([path, reply.status, (reply.body as { code?: string }).code]).toEqual([path, 403, 'session_required'])
      }
    })

    it('answers bad bearer values and bad bodies with a 4xx problem, never a 5xx', async () => {
      const { key } = await newKey(['todos:read'])
      const typo = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`
      for (const value of [typo, `lk_${'x'.repeat(10_000)}`, 'y'.repeat(10_000), `${key}\u00ff`]) {
        const reply = await request(server.base, 'GET', '/todos', { headers: { authorization: `Bearer ${value}` } })
        expect(reply.status).toBe(401)
        expect(reply.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
      }
      const nul = await rawAuthorization(server.base, `Bearer ${key.slice(0, 20)}\u0000${key.slice(21)}`)
      expect(nul).toBeGreaterThanOrEqual(400)
      expect(nul).toBeLessThan(500)
      for (const body of [
        { name: 'x', scopes: 'todos:read' },
        { name: 'x', scopes: { 0: 'todos:read' } },
        { name: 'x', scopes: ['todos:read\u0000'] },
        { name: 'x\u0000', scopes: ['todos:read'] },
        { name: 'x', scopes: ['todos:read'], expiresInDays: 1e308 },
        '{"name":',
      ]) {
        const reply = await create(body)
        expect(reply.status).toBe(400)
        expect(reply.headers.get('content-type')).toBe('application/problem+json')
      }
      expect((await request(server.base, 'DELETE', '/auth/api-keys/%00', { token: ada.token })).status).toBe(404)
    })

    it('revoked while in use: the first request after the revocation is refused', async () => {
      // Creations count 10 per account per 15 minutes: a new account.
      const dave = await signup(server.base, 'Dave')
      await verifyByDevMail(server, dave.email, dave.password)
      const { key, id } = await newKey(['todos:read'], dave)
      const inFlight = Array.from({ length: 10 }, () => request(server.base, 'GET', '/todos', { token: key }))
      const revoked = await request(server.base, 'DELETE', `/auth/api-keys/${id}`, { token: dave.token })
      expect(revoked.status).toBe(204)
      for (const reply of await Promise.all(inFlight)) expect([200, 401]).toContain(reply.status)
      expect((await request(server.base, 'GET', '/todos', { token: key })).status).toBe(401)
    })

    it('two creations at the 50-key limit: one 201, one 409 too_many_keys', async () => {
      const carol = await signup(server.base, 'Carol')
      await verifyByDevMail(server, carol.email, carol.password)
      // The per-account limit of creations (10 per 15 minutes) would come first: 49 keys go in by the database.
      await seed(carol.userId, 49)
      const listed = await request(server.base, 'GET', '/auth/api-keys', { token: carol.token })
      expect(listed.body).toHaveLength(49)
      const [a, b] = await Promise.all([
        create({ name: 'a', scopes: ['todos:read'] }, carol.token),
        create({ name: 'b', scopes: ['todos:read'] }, carol.token),
      ])
      expect([a.status, b.status].sort()).toEqual([201, 409])
      expect([a, b].find((r) => r.status === 409)?.body).toMatchObject({ code: 'too_many_keys' })
      for (const r of [a, b]) if (r.status === 201) shown.push((r.body as Created).key)
    })

    it('never writes a key in clear: not in a log line, not in a database column', async () => {
      const logs = `${server.stdout()}\n${server.stderr()}`
      const stored = await columns()
      for (const key of shown) {
        const secret = key.slice(12)
        expect(logs).not.toContain(secret)
        expect(stored).not.toContain(secret)
      }
      expect(stored).toContain(shown[0]?.slice(0, 12))
    })
  })

const seedRows = (userId: string, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const id = crypto.randomUUID()
    return [
      id,
      userId,
      `seed ${i}`,
      `seed-hash-${id}`,
      'lk_seeded000',
      '["todos:read"]',
      Date.now(),
      Date.now() + 86_400_000,
    ] as const
  })

scenario('SQLite', async () => {
  const server = await startServer()
  const withDb = <T>(use: (db: Database.Database) => T): T => {
    const db = new Database(server.dbPath)
    try {
      return use(db)
    } finally {
      db.close()
    }
  }
  return {
    server,
    columns: async () => withDb((db) => JSON.stringify(db.prepare('select * from auth_api_keys').all())),
    seed: async (userId, n) =>
      withDb((db) => {
        const insert = db.prepare(
          'insert into auth_api_keys (id, user_id, name, hash, prefix, scopes, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        for (const row of seedRows(userId, n)) insert.run(...row)
      }),
  }
})

let pg: PostgresSchema | undefined
describe.skipIf(unreachable !== null)('PostgreSQL', () => {
  afterAll(async () => {
    await pg?.drop()
  })
  scenario('PostgreSQL', async () => {
    pg = await freshPostgresSchema()
    const db = pg
    const server = await startServer({ env: { DATABASE_URL: db.url }, startTimeoutMs: 20_000 })
    return {
      server,
      columns: async () => JSON.stringify(await db.query('select * from auth_api_keys')),
      seed: async (userId, n) => {
        for (const row of seedRows(userId, n))
          await db.query(
            'insert into auth_api_keys (id, user_id, name, hash, prefix, scopes, created_at, expires_at) values ($1, $2, $3, $4, $5, $6::jsonb, to_timestamp($7 / 1000.0), to_timestamp($8 / 1000.0))',
            [...row],
          )
      },
    }
  })
})
