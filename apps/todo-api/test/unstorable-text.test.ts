/**
 * Text a store cannot hold (U+0000, a lone surrogate) is a 400 naming the field on every field of
 * every endpoint, on SQLite and on PostgreSQL alike (docs/reference/operations.md#unstorable-text): on PostgreSQL it used to reach
 * the database and answer 500, and the error's log line carried the statement's parameters.
 * A todo id that is not a UUID matches nothing (404 naming it) and never reaches the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freshPostgresSchema,
  type PostgresSchema,
  postgresUnreachable,
  type RunningServer,
  request,
  signup,
  startServer,
} from './support.js'

const pgSkip = await postgresUnreachable()
const NUL = 'a\u0000b'
const LONE = 'a\uD800b'
const GOOD = 'correct horse battery staple'

describe.each([
  { store: 'sqlite', skip: null },
  { store: 'postgres', skip: pgSkip },
])('unstorable text on $store', ({ store, skip }) => {
  let server: RunningServer
  let schema: PostgresSchema | undefined
  beforeAll(async () => {
    if (skip) return
    schema = store === 'postgres' ? await freshPostgresSchema() : undefined
    server = await startServer(schema ? { env: { DATABASE_URL: schema.url } } : {})
  })
  afterAll(async () => {
    await server?.stop()
    await schema?.drop()
  })

  it.skipIf(skip !== null)('answers 400 naming the field, for NUL and lone surrogates in every string field', async () => {
    const ada = await signup(server.base, 'Ada')
    const todo = await request(server.base, 'POST', '/todos', { token: ada.token, body: { title: 'fine' } })
    expect(todo.status).toBe(201)
    const todoId = (todo.body as { id: string }).id
    const cases: [string, string, string, (bad: string) => Record<string, unknown>, string][] = [
      ['POST', '/auth/signup', '', (bad) => ({ name: bad, email: 'n@example.com', password: GOOD }), 'name'],
      ['POST', '/auth/signup', '', (bad) => ({ name: 'N', email: `${bad}@example.com`, password: GOOD }), 'email'],
      ['POST', '/auth/signup', '', (bad) => ({ name: 'N', email: 'p@example.com', password: `${GOOD}${bad}` }), 'password'],
      ['POST', '/auth/login', '', (bad) => ({ email: `${bad}@example.com`, password: GOOD }), 'email'],
      ['POST', '/auth/login', '', (bad) => ({ email: ada.email, password: bad }), 'password'],
      ['POST', '/auth/forgot-password', '', (bad) => ({ email: bad }), 'email'],
      ['POST', '/auth/reset-password', '', (bad) => ({ token: bad, newPassword: GOOD }), 'token'],
      ['POST', '/auth/reset-password', '', (bad) => ({ token: 'x'.repeat(43), newPassword: `${GOOD}${bad}` }), 'newPassword'],
      ['POST', '/auth/change-password', ada.token, (bad) => ({ currentPassword: bad, newPassword: GOOD }), 'currentPassword'],
      [
        'POST',
        '/auth/change-password',
        ada.token,
        (bad) => ({ currentPassword: ada.password, newPassword: `${GOOD}${bad}` }),
        'newPassword',
      ],
      ['POST', '/todos', ada.token, (bad) => ({ title: bad }), 'title'],
      ['PATCH', `/todos/${todoId}`, ada.token, (bad) => ({ title: bad }), 'title'],
    ]
    for (const bad of [NUL, LONE])
      for (const [method, path, token, body, field] of cases) {
        const reply = await request(server.base, method, path, { token, body: body(bad) })
        const what = `${method} ${path} ${field} ${JSON.stringify(bad)}`
        expect(reply.status, what).toBe(400)
        expect(reply.headers.get('content-type'), what).toBe('application/problem+json')
        expect(
          (reply.body as { errors?: { path: string }[] }).errors?.map((e) => e.path),
          what,
        ).toContain(field)
      }
    // Nothing was changed by any of them: Ada still signs in with her password, her todo is as it was.
    expect(
      (await request(server.base, 'POST', '/auth/login', { body: { email: ada.email, password: ada.password } })).status,
    ).toBe(200)
    const list = await request(server.base, 'GET', '/todos', { token: ada.token })
    expect((list.body as { title: string }[]).map((t) => t.title)).toEqual(['fine'])
  })

  it.skipIf(skip !== null)(
    'answers a todo id the store cannot hold with the 404 naming it, and bad queries with 400',
    async () => {
      const ada = await signup(server.base, 'Ada')
      for (const [method, path] of [
        ['DELETE', '/todos/%00'],
        ['PATCH', '/todos/a%00'],
        ['DELETE', '/todos/%ED%A0%80'],
      ] as const) {
        const reply = await request(server.base, method, path, {
          token: ada.token,
          body: method === 'PATCH' ? { done: true } : undefined,
        })
        expect(reply.status, path).toBe(404)
        expect((reply.body as { detail: string }).detail, path).toMatch(/^No todo with id /)
      }
      for (const query of ['done=%00', 'limit=%00', 'done=t%00rue'])
        expect((await request(server.base, 'GET', `/todos?${query}`, { token: ada.token })).status, query).toBe(400)
    },
  )

  it.skipIf(skip !== null)('logged no database error and nothing a client sent', () => {
    const output = server.stdout() + server.stderr()
    expect(output).not.toMatch(/unexpected error/)
    expect(output).not.toContain('\u0000')
    expect(output).not.toContain('$argon2')
  })
})
