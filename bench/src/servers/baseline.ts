/**
 * The baseline servers, on the same SQLite file as the reference server and the same todo
 * query (the one Drizzle generates for `GET /todos`), answering the same JSON:
 *
 * - `bare`: plain Hono, no auth at all; the caller names the user in `x-user-id`. The ceiling.
 * - `jwt`: Hono's own stateless `hono/jwt` middleware (HS256, same secret); the user is `sub`.
 *   It checks `iss` and `aud` like ours but never looks at a session: a revoked token keeps working until it expires.
 * - `latchkey`: the same bare app behind `@latchkey/auth`'s guard (same secret, the sessions the
 *   reference server keeps in this file); the user is the guard's. Only the auth differs from `bare`.
 * - `lean`: no framework at all: `node:http`, the caller names the user in `x-user-id`, the same
 *   statements and JSON as `bare`. The leanest baseline a harness could pick (`compare.js http --lean`).
 *
 * `bare` also answers `POST /verify` (one argon2id verify of ARGON2_HASH) when that is set: the
 * floor of a login over HTTP; `jwt` answers `POST /auth/login` as an app on hono/jwt would.
 *
 * Run as `node baseline.js bare|jwt|latchkey|lean` with DATABASE_PATH, AUTH_SECRET and PORT (0: any free port).
 * Prints `listening on http://127.0.0.1:<port>` once ready; SIGTERM stops it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { createAuth, type GuardVariables } from '@latchkey/auth'
import { problemErrorHandler } from '@latchkey/auth/http'
import { sqliteStore } from '@latchkey/auth/sqlite'
import { hash, verify } from '@node-rs/argon2'
import Database from 'better-sqlite3'
import { Hono, type MiddlewareHandler } from 'hono'
import { jwt, sign } from 'hono/jwt'
import { v7 as uuidv7 } from 'uuid'

const mode = process.argv[2]
if (mode !== 'bare' && mode !== 'jwt' && mode !== 'latchkey' && mode !== 'lean')
  throw new Error('usage: node baseline.js bare|jwt|latchkey|lean')
const path = process.env.DATABASE_PATH
if (!path) throw new Error('DATABASE_PATH is required')
const secret = process.env.AUTH_SECRET ?? ''

const passwordHash = process.env.ARGON2_HASH
const db = new Database(path)
db.pragma('journal_mode = WAL')
db.pragma('busy_timeout = 5000')

interface TodoRow {
  id: string
  user_id: string
  title: string
  done: number
  created_at: number
}

const list = db.prepare<[string, number], TodoRow>(
  'select "id", "user_id", "title", "done", "created_at" from "todos" where "todos"."user_id" = ? ' +
    'order by "todos"."created_at" desc, "todos"."id" desc limit ?',
)
const insert = db.prepare<[string, string, string, number, number], TodoRow>(
  'insert into "todos" ("id", "user_id", "title", "done", "created_at") values (?, ?, ?, ?, ?) ' +
    'returning "id", "user_id", "title", "done", "created_at"',
)

const todoJson = (row: TodoRow) => ({
  id: row.id,
  userId: row.user_id,
  title: row.title,
  done: row.done === 1,
  createdAt: new Date(row.created_at).toISOString(),
})

type Env = { Variables: { userId: string } }

const bareUser: MiddlewareHandler<Env> = async (c, next) => {
  const id = c.req.header('x-user-id')
  if (!id) return c.json({ title: 'Unauthorized' }, 401)
  c.set('userId', id)
  await next()
}

const jwtUser: MiddlewareHandler<Env> = async (c, next) => {
  const sub = (c.get('jwtPayload' as never) as { sub?: unknown } | undefined)?.sub
  if (typeof sub !== 'string') return c.json({ title: 'Unauthorized' }, 401)
  c.set('userId', sub)
  await next()
}

const latchkeyUser: MiddlewareHandler<Env> = async (c, next) => {
  const user = c.get('user' as never) as GuardVariables['user'] | undefined
  if (!user) return c.json({ title: 'Unauthorized' }, 401)
  c.set('userId', user.id)
  await next()
}

const app = new Hono<Env>()
if (mode === 'bare') app.use('/todos', bareUser)
else if (mode === 'jwt')
  app.use('/todos', jwt({ secret, alg: 'HS256', verification: { iss: 'latchkey', aud: 'latchkey' } }), jwtUser)
else if (mode === 'latchkey') {
  const auth = createAuth({ secret, store: sqliteStore(db), sendMail: () => {} })
  app.use('/todos', auth.guard(true) as unknown as MiddlewareHandler<Env>, latchkeyUser)
}
// Refusals as the library answers them (problem documents), for the `latchkey` mode's guard.
app.onError(problemErrorHandler(console.error))

app.get('/todos', (c) => {
  const limit = Number(c.req.query('limit') ?? 20)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return c.json({ title: 'Bad limit' }, 400)
  return c.json(list.all(c.get('userId'), limit).map(todoJson))
})

app.post('/todos', async (c) => {
  const body = (await c.req.json()) as { title?: unknown; done?: unknown }
  if (typeof body.title !== 'string' || body.title.trim() === '' || body.title.length > 500)
    return c.json({ title: 'Bad title' }, 400)
  const done = body.done === true ? 1 : 0
  const row = insert.get(uuidv7(), c.get('userId'), body.title, done, Date.now())
  if (!row) return c.json({ title: 'Not stored' }, 500)
  return c.json(todoJson(row), 201)
})

// The login as an app on hono/jwt writes it (`jwt` only): read the JSON body, find the user by
// email, one argon2id verify (of the same seeded hash, same parameters; an unknown email against
// that hash too), sign a 15-minute HS256 token with hono/jwt's `sign`, answer it. No session, no
// cookie, no limiter, no events: the peer of the reference server's login (bench scenario 3).
const byEmail = db.prepare<[string], { id: string; password_hash: string }>(
  'select "id", "password_hash" from "auth_users" where "email" = ?',
)
if (mode === 'jwt' && passwordHash)
  app.post('/auth/login', async (c) => {
    const body = (await c.req.json()) as { email?: unknown; password?: unknown }
    if (typeof body.email !== 'string' || typeof body.password !== 'string') return c.json({ title: 'Bad body' }, 400)
    const user = byEmail.get(body.email)
    const ok = await verify(user?.password_hash ?? passwordHash, body.password)
    if (!user || !ok) return c.json({ title: 'Wrong email or password' }, 401)
    const now = Math.floor(Date.now() / 1000)
    const accessToken = await sign({ sub: user.id, iss: 'latchkey', aud: 'latchkey', iat: now, exp: now + 900 }, secret, 'HS256')
    return c.json({ accessToken, tokenType: 'Bearer', expiresIn: 900 })
  })

// The signup as an app on hono/jwt writes it (`jwt` only): read the JSON body, one argon2id hash
// with the seeded hash's parameters, insert the user (409 when the email is taken), sign a token,
// answer 201. No session, device, verification mail, limiter or events: the peer of the reference
// server's signup (bench scenario 3s).
const argon = /m=(\d+),t=(\d+),p=(\d+)/.exec(passwordHash ?? '')
const insertUser = db.prepare<[string, string, string, string, number]>(
  'insert into "auth_users" ("id", "name", "email", "password_hash", "created_at") values (?, ?, ?, ?, ?) on conflict do nothing',
)
if (mode === 'jwt' && argon)
  app.post('/auth/signup', async (c) => {
    const body = (await c.req.json()) as { name?: unknown; email?: unknown; password?: unknown }
    if (typeof body.name !== 'string' || typeof body.email !== 'string' || typeof body.password !== 'string')
      return c.json({ title: 'Bad body' }, 400)
    const [, memoryCost, timeCost, parallelism] = argon.map(Number)
    const passwordHash = await hash(body.password, { algorithm: 2 /* Argon2id */, memoryCost, timeCost, parallelism })
    const id = uuidv7()
    if (insertUser.run(id, body.name, body.email, passwordHash, Date.now()).changes === 0)
      return c.json({ title: 'Email taken' }, 409)
    const now = Math.floor(Date.now() / 1000)
    const accessToken = await sign({ sub: id, iss: 'latchkey', aud: 'latchkey', iat: now, exp: now + 900 }, secret, 'HS256')
    return c.json({ accessToken, tokenType: 'Bearer', expiresIn: 900 }, 201)
  })

// The floor of any login over HTTP: read the JSON body, one argon2id verify of the seeded hash
// (ARGON2_HASH), answer. No lookup, no session, no token. Only in `bare`.
if (mode === 'bare' && passwordHash)
  app.post('/verify', async (c) => {
    const body = (await c.req.json()) as { password?: unknown }
    if (typeof body.password !== 'string') return c.json({ title: 'Bad password' }, 400)
    return (await verify(passwordHash, body.password)) ? c.json({ ok: true }) : c.json({ title: 'Wrong password' }, 401)
  })

/** `lean`: `GET /todos?limit=` and `POST /todos` straight on `node:http`, answering what `bare` answers. */
const lean = (req: IncomingMessage, res: ServerResponse) => {
  const answer = (status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }
  const userId = req.headers['x-user-id']
  const url = new URL(req.url ?? '/', 'http://localhost')
  if (url.pathname !== '/todos') return answer(404, { title: 'Not found' })
  if (typeof userId !== 'string') return answer(401, { title: 'Unauthorized' })
  if (req.method === 'GET') {
    const limit = Number(url.searchParams.get('limit') ?? 20)
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return answer(400, { title: 'Bad limit' })
    return answer(200, list.all(userId, limit).map(todoJson))
  }
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    let body: { title?: unknown; done?: unknown }
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body
    } catch {
      return answer(400, { title: 'Bad JSON' })
    }
    if (typeof body.title !== 'string' || body.title.trim() === '' || body.title.length > 500)
      return answer(400, { title: 'Bad title' })
    const row = insert.get(uuidv7(), userId, body.title, body.done === true ? 1 : 0, Date.now())
    return row ? answer(201, todoJson(row)) : answer(500, { title: 'Not stored' })
  })
}

const server = createServer(mode === 'lean' ? lean : getRequestListener(app.fetch))
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(`listening on http://127.0.0.1:${port} (${mode})`)
})
process.on('SIGTERM', () => {
  server.close(() => {
    db.close()
    process.exit(0)
  })
  server.closeAllConnections()
})
