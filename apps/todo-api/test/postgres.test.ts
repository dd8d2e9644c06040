/**
 * The todo API means the same on PostgreSQL as on SQLite: one scripted session of creates, lists
 * (ordering, ties, `done`, `limit`), changes and deletions (own, another user's, unknown and
 * malformed ids) runs against a server on each, and the two transcripts must be identical.
 * Skips, saying why, when PostgreSQL is unreachable.
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freshPostgresSchema,
  type PostgresSchema,
  postgresUnreachable,
  type Reply,
  type RunningServer,
  request,
  signup,
  startServer,
  type TodoJson,
} from './support.js'

const unreachable = await postgresUnreachable()

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const TIE_AT = '2030-01-01T00:00:00.000Z'
// Written straight into the database in this order: one millisecond, so only the id orders them.
const TIES = [
  ['01900000-0000-7000-8000-00000000000b', 'tie b'],
  ['01900000-0000-7000-8000-00000000000c', 'tie c'],
  ['01900000-0000-7000-8000-00000000000a', 'tie a'],
] as const

type InsertTies = (userId: string) => Promise<void>

/** Runs the script against one server; returns what it saw with ids, owners and times made comparable. */
const transcript = async (base: string, insertTies: InsertTies) => {
  const [ada, bob] = [await signup(base, 'Ada'), await signup(base, 'Bob')]
  const names = new Map<string, string>([
    [ada.userId, 'ada'],
    [bob.userId, 'bob'],
  ])
  const label = (id: string) => names.get(id) ?? `?${id}`
  const normalise = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(normalise)
    if (value && typeof value === 'object') {
      const todo = value as Partial<TodoJson> & { detail?: string }
      if (typeof todo.detail === 'string')
        return {
          ...todo,
          detail: todo.detail.replace(/[0-9a-f-]{36}/gi, (id) => names.get(id) ?? `${names.get(id.toLowerCase())} in upper case`),
        }
      if (typeof todo.id === 'string' && typeof todo.userId === 'string') {
        expect(todo.createdAt).toMatch(ISO_MS)
        return {
          ...todo,
          id: label(todo.id),
          userId: label(todo.userId),
          createdAt: todo.createdAt === TIE_AT ? TIE_AT : 'now',
        }
      }
    }
    return value
  }
  const seen: { step: string; status: number; body: unknown }[] = []
  const step = async (name: string, reply: Promise<Reply>) => {
    const { status, body } = await reply
    // A created todo is known by its title from then on.
    if (status === 201) names.set((body as TodoJson).id, (body as TodoJson).title)
    seen.push({ step: name, status, body: normalise(body) })
    return body
  }
  const as = (who: typeof ada) => (method: string, path: string, body?: unknown) =>
    request(base, method, path, { token: who.token, body })
  const [asAda, asBob] = [as(ada), as(bob)]

  const made: TodoJson[] = []
  for (let i = 0; i < 12; i++) {
    made.push((await step(`create ${i}`, asAda('POST', '/todos', { title: `t${i}`, done: i % 3 === 0 }))) as TodoJson)
  }
  await insertTies(ada.userId)
  for (const [id, title] of TIES) names.set(id, title)
  const [t0, t1, t2, t3] = made as [TodoJson, TodoJson, TodoJson, TodoJson]

  for (const query of ['', '?limit=1', '?limit=5', '?limit=100', '?done=true', '?done=false&limit=3', '?done=TRUE&limit=2'])
    await step(`ada lists ${query}`, asAda('GET', `/todos${query}`))
  await step('bob lists', asBob('GET', '/todos?limit=100'))

  await step('ada renames t0', asAda('PATCH', `/todos/${t0.id}`, { title: 'renamed' }))
  await step('ada marks t1 done', asAda('PATCH', `/todos/${t1.id}`, { done: true }))
  await step("bob patches ada's t1", asBob('PATCH', `/todos/${t1.id}`, { title: 'hijacked' }))
  await step('ada patches a malformed id', asAda('PATCH', '/todos/not-a-uuid', { done: true }))
  await step('ada patches t2 in upper case', asAda('PATCH', `/todos/${t2.id.toUpperCase()}`, { done: true }))
  await step('ada patches an unknown id', asAda('PATCH', '/todos/01a1fd66-b81f-769d-a62a-c6f129b7fd9b', { done: true }))
  await step("bob deletes ada's t3", asBob('DELETE', `/todos/${t3.id}`))
  await step('ada deletes t3', asAda('DELETE', `/todos/${t3.id}`))
  await step('ada deletes t3 again', asAda('DELETE', `/todos/${t3.id}`))
  await step('ada deletes a quoted id', asAda('DELETE', `/todos/${encodeURIComponent("' or ''='")}`))
  await step('ada lists at the end', asAda('GET', '/todos?limit=100'))
  await step('bob lists at the end', asBob('GET', '/todos?limit=100'))
  return seen
}

describe.skipIf(unreachable !== null)('the todo API on PostgreSQL and on SQLite', () => {
  let db: PostgresSchema
  let onPostgres: RunningServer
  let onSqlite: RunningServer

  beforeAll(async () => {
    db = await freshPostgresSchema()
    ;[onPostgres, onSqlite] = await Promise.all([
      startServer({ env: { DATABASE_URL: db.url }, startTimeoutMs: 20_000 }),
      startServer(),
    ])
  })

  afterAll(async () => {
    await Promise.all([onPostgres?.stop(), onSqlite?.stop()])
    await db?.drop()
  })

  it('answers one scripted session identically: ordering, ties, filters, limits, ownership, 404s', async () => {
    const fromPostgres = await transcript(onPostgres.base, async (userId) => {
      for (const [id, title] of TIES)
        await db.query('insert into todos (id, user_id, title, done, created_at) values ($1, $2, $3, false, $4)', [
          id,
          userId,
          title,
          TIE_AT,
        ])
    })
    const fromSqlite = await transcript(onSqlite.base, async (userId) => {
      const sqlite = new Database(onSqlite.dbPath)
      try {
        const insert = sqlite.prepare('insert into todos (id, user_id, title, done, created_at) values (?, ?, ?, 0, ?)')
        for (const [id, title] of TIES) insert.run(id, userId, title, Date.parse(TIE_AT))
      } finally {
        sqlite.close()
      }
    })
    expect(fromPostgres).toEqual(fromSqlite)

    // And the shared answers are the documented ones (docs/reference), not a shared mistake.
    const titles = (name: string) => ((fromPostgres.find((s) => s.step === name)?.body ?? []) as TodoJson[]).map((t) => t.title)
    expect(titles('ada lists ')).toHaveLength(15)
    expect(titles('ada lists ?limit=5')).toEqual(['tie c', 'tie b', 'tie a', 't11', 't10'])
    expect(titles('ada lists ?done=false&limit=3')).toEqual(['tie c', 'tie b', 'tie a'])
    expect(titles('ada lists ?done=true')).toEqual(['t9', 't6', 't3', 't0'])
    expect(titles('bob lists')).toEqual([])
    const statuses = Object.fromEntries(fromPostgres.map((s) => [s.step, s.status]))
    expect(statuses).toMatchObject({
      'ada renames t0': 200,
      "bob patches ada's t1": 404,
      'ada patches a malformed id': 404,
      'ada patches t2 in upper case': 404,
      "bob deletes ada's t3": 404,
      'ada deletes t3': 204,
      'ada deletes t3 again': 404,
      'ada deletes a quoted id': 404,
    })
    expect(fromPostgres.find((s) => s.step === 'ada patches a malformed id')?.body).toMatchObject({
      detail: 'No todo with id not-a-uuid',
    })
  })

  it('answers /health and counts users and todos in PostgreSQL', async () => {
    expect((await request(onPostgres.base, 'GET', '/health')).text).toBe('{"status":"ok"}')
    const [counts] = await db.query<{ users: number; todos: number }>(
      'select (select count(*) from auth_users)::int as users, (select count(*) from todos)::int as todos',
    )
    expect(counts).toEqual({ users: 2, todos: 14 })
  })
})

describe.skipIf(unreachable !== null)('graceful shutdown on PostgreSQL', () => {
  it('lets handlers whose clients hung up finish before the pool closes, then exits 0', async () => {
    const db = await freshPostgresSchema()
    try {
      const server = await startServer({ env: { DATABASE_URL: db.url }, startTimeoutMs: 20_000 })
      // Signups spend tens of milliseconds hashing between their queries; abort them all mid-way.
      const aborted = new AbortController()
      // Eight: one client's share of the hashing queue (a quarter of 32), so none is refused with 503.
      const signups = Array.from({ length: 8 }, (_, i) =>
        fetch(`${server.base}/auth/signup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Hung', email: `hung-up-${i}@example.com`, password: 'plum tractor hung lantern' }),
          signal: aborted.signal,
        }).catch(() => null),
      )
      // The rate limiter is each signup's first query: once it has counted some, handlers are running.
      const begun = async () =>
        (
          await db.query<{ n: number }>(
            "select coalesce(sum(count), 0)::int as n from auth_rate_limits where key like 'signup:ip:%'",
          )
        )[0]?.n ?? 0
      await expect.poll(begun, { timeout: 10_000, interval: 2 }).toBeGreaterThan(0)
      aborted.abort()
      server.process.kill('SIGTERM')
      await Promise.all(signups)
      expect(await server.exited).toEqual({ code: 0, signal: null })
      expect(server.stderr()).not.toMatch(/unexpected error|pool/i)

      // Every signup that began ran to its end: an account and its session each.
      const [row] = await db.query<{ users: number; sessions: number }>(
        'select (select count(*) from auth_users)::int as users, (select count(*) from auth_sessions)::int as sessions',
      )
      expect(row).toEqual({ users: await begun(), sessions: await begun() })
    } finally {
      await db.drop()
    }
  })
})
