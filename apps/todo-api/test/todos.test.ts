/** The todo endpoints over real HTTP: shapes, ordering, filters and their 400s, ownership, body rules. */
import { connect } from 'node:net'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, type RunningServer, request, signup, startServer, type TodoJson } from './support.js'

let server: RunningServer
let ada: Account
let bob: Account

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const api = (method: string, path: string, who: Account | null, body?: unknown) =>
  request(server.base, method, path, { token: who?.token, body })

const create = async (who: Account, title: string, done?: boolean) => {
  const reply = await api('POST', '/todos', who, done === undefined ? { title } : { title, done })
  expect(reply.status, reply.text).toBe(201)
  return reply.body as TodoJson
}

const list = async (who: Account, query = '') => {
  const reply = await api('GET', `/todos${query}`, who)
  expect(reply.status, reply.text).toBe(200)
  return reply.body as TodoJson[]
}

/** One raw HTTP/1.1 request, exactly as written (no Content-Length unless given). */
const raw = (port: number, head: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let out = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      out += chunk
    })
    socket.on('end', () => resolve(out))
    socket.on('error', reject)
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  })

beforeAll(async () => {
  server = await startServer()
  ;[ada, bob] = await Promise.all([signup(server.base, 'Ada'), signup(server.base, 'Bob')])
})

afterAll(async () => {
  await server?.stop()
})

describe('POST /todos', () => {
  it('creates a todo owned by the caller with a server-made UUIDv7 and ignores id, userId and createdAt in the body', async () => {
    const before = Date.now()
    const reply = await api('POST', '/todos', ada, {
      title: 'Buy milk',
      id: '00000000-0000-7000-8000-000000000000',
      userId: bob.userId,
      createdAt: '2000-01-01T00:00:00.000Z',
    })
    expect(reply.status).toBe(201)
    const todo = reply.body as TodoJson
    expect(todo).toEqual({
      id: expect.stringMatching(UUID_V7),
      userId: ada.userId,
      title: 'Buy milk',
      done: false,
      createdAt: expect.stringMatching(ISO_MS),
    })
    expect(todo.id).not.toBe('00000000-0000-7000-8000-000000000000')
    expect(Date.parse(todo.createdAt)).toBeGreaterThanOrEqual(before - 1000)
    expect(await list(bob)).toEqual([])
  })

  it('accepts done on create', async () => {
    expect((await create(ada, 'Already done', true)).done).toBe(true)
  })

  it('refuses a missing, empty, blank, too long or non-string title with 400 and errors[]', async () => {
    for (const body of [
      {},
      { title: '' },
      { title: '   ' },
      { title: 'x'.repeat(501) },
      { title: 42 },
      { title: 'ok', done: 'yes' },
    ]) {
      const reply = await api('POST', '/todos', ada, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.headers.get('content-type')).toBe('application/problem+json')
      expect((reply.body as { errors: { path: string }[] }).errors.length).toBeGreaterThan(0)
    }
  })

  it('counts the 500-character limit in characters, not UTF-16 units', async () => {
    expect((await create(ada, '🙂'.repeat(500))).title).toBe('🙂'.repeat(500))
    expect((await api('POST', '/todos', ada, { title: '🙂'.repeat(501) })).status).toBe(400)
  })
})

describe('GET /todos', () => {
  let carol: Account
  beforeAll(async () => {
    carol = await signup(server.base, 'Carol')
  })

  it('lists newest first, ties broken by id, and ids made in one millisecond still sort in creation order', async () => {
    const made: TodoJson[] = []
    for (let i = 0; i < 30; i++) made.push(await create(carol, `todo ${i}`, i % 3 === 0))
    const ids = made.map((t) => t.id)
    expect([...ids].sort()).toEqual(ids)

    const all = await list(carol, '?limit=100')
    expect(all.map((t) => t.title)).toEqual(made.map((t) => t.title).reverse())
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!]
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true)
    }
  })

  it('breaks createdAt ties by id, newest first', async () => {
    const dave = await signup(server.base, 'Dave')
    // Three rows in the same millisecond, written straight into the server's database file.
    const db = new Database(server.dbPath)
    try {
      const insert = db.prepare('insert into todos (id, user_id, title, done, created_at) values (?, ?, ?, 0, ?)')
      const at = Date.parse('2026-01-01T00:00:00.000Z')
      insert.run('01900000-0000-7000-8000-00000000000b', dave.userId, 'middle', at)
      insert.run('01900000-0000-7000-8000-00000000000c', dave.userId, 'last', at)
      insert.run('01900000-0000-7000-8000-00000000000a', dave.userId, 'first', at)
    } finally {
      db.close()
    }
    expect((await list(dave)).map((t) => t.title)).toEqual(['last', 'middle', 'first'])
    expect((await list(dave, '?limit=1')).map((t) => t.title)).toEqual(['last'])
  })

  it('gives concurrent creations ids in the same order as their createdAt', async () => {
    const erin = await signup(server.base, 'Erin')
    const made = await Promise.all(Array.from({ length: 25 }, (_, i) => create(erin, `parallel ${i}`)))
    expect(new Set(made.map((t) => t.id)).size).toBe(25)
    for (const a of made)
      for (const b of made) if (a.createdAt < b.createdAt) expect(a.id < b.id, `${a.id} before ${b.id}`).toBe(true)
    const listed = await list(erin, '?limit=100')
    expect(listed.map((t) => t.id)).toEqual(
      made
        .map((t) => t.id)
        .sort()
        .reverse(),
    )
  })

  it('returns 20 by default and at most limit', async () => {
    expect(await list(carol)).toHaveLength(20)
    expect(await list(carol, '?limit=1')).toHaveLength(1)
    expect(await list(carol, '?limit=100')).toHaveLength(30)
    expect((await list(carol, '?limit=7')).map((t) => t.title)).toEqual(
      (await list(carol, '?limit=100')).slice(0, 7).map((t) => t.title),
    )
  })

  it.each([
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=abc',
    'limit=1.5',
    'limit=',
    'limit=1e1',
    'limit=0x10',
    'limit=%205',
    'limit=1&limit=2',
  ])('answers 400 for %s', async (query) => {
    const reply = await api('GET', `/todos?${query}`, carol)
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ status: 400, errors: [expect.objectContaining({ path: 'limit' })] })
  })

  it.each(['true', 'TRUE', 'True', '1', 'yes', 'YES', 'on', 'On'])('done=%s lists only done todos', async (value) => {
    const todos = await list(carol, `?done=${value}&limit=100`)
    expect(todos).toHaveLength(10)
    expect(todos.every((t) => t.done)).toBe(true)
  })

  it.each(['false', 'FALSE', '0', 'no', 'No', 'off', 'OFF'])('done=%s lists only open todos', async (value) => {
    const todos = await list(carol, `?done=${value}&limit=100`)
    expect(todos).toHaveLength(20)
    expect(todos.every((t) => !t.done)).toBe(true)
  })

  it.each(['maybe', '', 'truee', '2', 'y', 'done=true&done=false', 'constructor', 'toString', '__proto__'])(
    'answers 400 for done=%s',
    async (value) => {
      const query = value.includes('=') ? value : `done=${value}`
      const reply = await api('GET', `/todos?${query}`, carol)
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ errors: [expect.objectContaining({ path: 'done' })] })
    },
  )

  it('combines done and limit, newest first', async () => {
    const open = await list(carol, '?done=false&limit=3')
    expect(open.map((t) => t.title)).toEqual(['todo 29', 'todo 28', 'todo 26'])
  })

  it('ignores unknown query parameters', async () => {
    expect(await list(carol, '?limit=2&sort=asc&userId=someone')).toHaveLength(2)
  })
})

describe('PATCH /todos/{id}', () => {
  it('changes title, done or both and ignores other fields', async () => {
    const todo = await create(ada, 'draft')
    const a = await api('PATCH', `/todos/${todo.id}`, ada, { title: 'final' })
    expect(a.status).toBe(200)
    expect(a.body).toEqual({ ...todo, title: 'final' })
    const b = await api('PATCH', `/todos/${todo.id}`, ada, {
      done: true,
      userId: bob.userId,
      id: 'x',
      createdAt: '2000-01-01T00:00:00.000Z',
    })
    expect(b.body).toEqual({ ...todo, title: 'final', done: true })
    const c = await api('PATCH', `/todos/${todo.id}`, ada, { title: 'again', done: false })
    expect(c.body).toEqual({ ...todo, title: 'again', done: false })
  })

  it('needs at least one of title and done, each valid', async () => {
    const todo = await create(ada, 'patch me')
    for (const body of [{}, { other: 1 }, { title: '' }, { title: null }, { done: 'true' }, { title: 'x'.repeat(501) }]) {
      const reply = await api('PATCH', `/todos/${todo.id}`, ada, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.headers.get('content-type')).toBe('application/problem+json')
    }
  })

  it('answers 404 naming the id for an unknown or malformed id', async () => {
    for (const id of ['01a1fd66-b81f-769d-a62a-c6f129b7fd9b', 'not-a-uuid']) {
      const reply = await api('PATCH', `/todos/${id}`, ada, { done: true })
      expect(reply.status).toBe(404)
      expect(reply.headers.get('content-type')).toBe('application/problem+json')
      expect((reply.body as { detail: string }).detail).toBe(`No todo with id ${id}`)
    }
  })
})

describe('DELETE /todos/{id}', () => {
  it('deletes with 204, then the id is gone (404 naming it)', async () => {
    const todo = await create(ada, 'delete me')
    const reply = await api('DELETE', `/todos/${todo.id}`, ada)
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    const again = await api('DELETE', `/todos/${todo.id}`, ada)
    expect(again.status).toBe(404)
    expect((again.body as { detail: string }).detail).toContain(todo.id)
    expect((await list(ada, '?limit=100')).some((t) => t.id === todo.id)).toBe(false)
  })

  it('works for a request without Content-Length (curl -X DELETE)', async () => {
    const todo = await create(ada, 'curl delete')
    const answer = await raw(server.port, `DELETE /todos/${todo.id} HTTP/1.1\r\nAuthorization: Bearer ${ada.token}`)
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content')
  })
})

describe('ownership', () => {
  it("never shows, changes or deletes another user's todo, and answers 404 (never 403) naming the id", async () => {
    const secret = await create(ada, 'ada only')
    expect((await list(bob, '?limit=100')).some((t) => t.id === secret.id)).toBe(false)
    expect((await list(bob, '?done=false&limit=100')).some((t) => t.id === secret.id)).toBe(false)

    const patch = await api('PATCH', `/todos/${secret.id}`, bob, { title: 'hijacked', done: true })
    const del = await api('DELETE', `/todos/${secret.id}`, bob)
    for (const reply of [patch, del]) {
      expect(reply.status).toBe(404)
      expect((reply.body as { detail: string }).detail).toBe(`No todo with id ${secret.id}`)
    }
    const mine = (await list(ada, '?limit=100')).find((t) => t.id === secret.id)
    expect(mine).toEqual(secret)
  })

  it('answers 401 with WWW-Authenticate on every todo route without a valid credential', async () => {
    const todo = await create(ada, 'guarded')
    const calls: [string, string, unknown][] = [
      ['GET', '/todos', undefined],
      ['POST', '/todos', { title: 'x' }],
      ['PATCH', `/todos/${todo.id}`, { done: true }],
      ['DELETE', `/todos/${todo.id}`, undefined],
    ]
    for (const [method, path, body] of calls) {
      const anonymous = await request(server.base, method, path, { body })
      expect(anonymous.status, `${method} ${path}`).toBe(401)
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
      const forged = await request(server.base, method, path, { body, token: `${ada.token.slice(0, -4)}AAAA` })
      expect(forged.status, `${method} ${path}`).toBe(401)
      expect(forged.headers.get('www-authenticate')).toContain('invalid_token')
    }
    expect((await list(ada, '?limit=100')).find((t) => t.id === todo.id)?.done).toBe(false)
  })

  it('accepts the access_token query parameter and then forbids caching and referrers', async () => {
    const reply = await request(server.base, 'GET', `/todos?limit=1&access_token=${ada.token}`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.headers.get('referrer-policy')).toBe('no-referrer')
  })
})

describe('HTTP conventions', () => {
  it('answers 413 over 64 KiB, 415 for non-JSON and 400 for malformed JSON, as problem documents', async () => {
    const big = await request(server.base, 'POST', '/todos', { token: ada.token, body: { title: 'x'.repeat(70_000) } })
    const text = await request(server.base, 'POST', '/todos', {
      token: ada.token,
      body: 'title=x',
      headers: { 'content-type': 'text/plain' },
    })
    const bad = await request(server.base, 'POST', '/todos', { token: ada.token, body: '{"title":' })
    expect([big.status, text.status, bad.status]).toEqual([413, 415, 400])
    for (const reply of [big, text, bad]) expect(reply.headers.get('content-type')).toBe('application/problem+json')
    // 413 and 415 come before 401.
    expect((await request(server.base, 'POST', '/todos', { body: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(
      415,
    )
    // application/json, its parameters aside: another JSON-like type is not it.
    const typed = (type: string) =>
      request(server.base, 'POST', '/todos', { token: ada.token, body: { title: type }, headers: { 'content-type': type } })
    for (const type of ['application/vnd.api+json', 'application/merge-patch+json', 'application/jsonx', 'text/json'])
      expect((await typed(type)).status, type).toBe(415)
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) expect((await typed(type)).status, type).toBe(201)
  })

  it('answers unknown routes and wrong methods with a problem document', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['PUT', '/todos'],
      ['GET', '/todos/some-id'],
      ['POST', '/health'],
    ] as const) {
      const reply = await request(server.base, method, path, { token: ada.token })
      expect([404, 405], `${method} ${path}`).toContain(reply.status)
      expect(reply.headers.get('content-type')).toBe('application/problem+json')
      expect(reply.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: reply.status })
    }
  })

  it('answers 413 and 415 before 404 where no route takes the request', async () => {
    for (const [method, path] of [
      ['POST', '/nope'],
      ['PUT', '/todos'],
      ['POST', '/health'],
      ['DELETE', '/admin/stats'],
    ] as const) {
      const big = await request(server.base, method, path, { token: ada.token, body: { title: 'x'.repeat(70_000) } })
      const text = await request(server.base, method, path, { body: 'x', headers: { 'content-type': 'text/plain' } })
      expect([big.status, text.status], `${method} ${path}`).toEqual([413, 415])
      expect(text.headers.get('content-type')).toBe('application/problem+json')
    }
  })

  it('sends X-Content-Type-Options: nosniff on every response', async () => {
    const replies = await Promise.all([
      request(server.base, 'GET', '/health'),
      request(server.base, 'GET', '/todos', { token: ada.token }),
      request(server.base, 'GET', '/todos'),
      request(server.base, 'GET', '/nope'),
      request(server.base, 'GET', '/openapi.json'),
      request(server.base, 'GET', '/reset-password?token=x'),
      request(server.base, 'POST', '/auth/login', { body: { email: ada.email, password: 'wrong password here' } }),
    ])
    for (const reply of replies) expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('marks todo responses as not cacheable', async () => {
    expect((await request(server.base, 'GET', '/todos', { token: ada.token })).headers.get('cache-control')).toBe('no-store')
  })
})
