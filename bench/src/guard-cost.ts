/**
 * Scenarios 1c and 1d, in-process, without the reference app around them. Hono apps answer the
 * same tiny JSON on one route, `GET /x?limit=20`:
 * - 1c, the auth layer: with no auth, behind Latchkey's guard (token, then the live session and
 *   user from SQLite), and behind `hono/jwt` (stateless). Each layer's cost is its time per
 *   request minus the no-auth app's.
 * - 1d, query validation: the guarded route declared with @hono/zod-openapi as the reference
 *   server declares its routes, once without and once with a zod schema for `limit` (laxer than
 *   the reference server's, so a lower bound). The difference is what validating the query adds.
 * The apps take turns in many short rounds, and each app's cost is the 10th percentile of its
 * rounds: the machine's interference only ever adds time, and the differences measured here
 * (a few µs) drown in it otherwise.
 * Run pinned to the server core as `node guard-cost.js <requests per round> <rounds>`; prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OpenAPIHono, z } from '@hono/zod-openapi'
import { createAuth } from '@latchkey/auth'
import { migrateSqlite, openSqlite, sqliteStore } from '@latchkey/auth/sqlite'
import { Hono } from 'hono'
import { jwt } from 'hono/jwt'
import { percentile, sortedCopy } from './stats.js'

const perRound = Number(process.argv[2])
const rounds = Number(process.argv[3])
if (!(perRound > 0 && perRound <= 200_000 && rounds > 0 && rounds <= 100))
  throw new Error('usage: node guard-cost.js <requests per round ≤ 200000> <rounds ≤ 100>')

const dir = mkdtempSync(join(tmpdir(), 'latchkey-guard-cost-'))
const db = openSqlite(join(dir, 'auth.db'))
migrateSqlite(db)
const secret = 'a-bench-secret-of-at-least-32-characters!'
const auth = createAuth({ secret, store: sqliteStore(db), sendMail: () => {} })

const signup = await auth.routes.request('/signup', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Bench', email: 'guard@bench.test', password: 'plum tractor lantern bench' }),
})
if (signup.status !== 201) throw new Error(`signup answered ${signup.status}`)
const { accessToken } = (await signup.json()) as { accessToken: string }
const headers = { authorization: `Bearer ${accessToken}` }

const answer = { ok: true }
const layers = {
  none: new Hono().get('/x', (c) => c.json(answer)),
  latchkey: new Hono().get('/x', auth.guard(true), (c) => c.json(answer)),
  honoJwt: new Hono().get('/x', jwt({ secret, alg: 'HS256', verification: { iss: 'latchkey', aud: 'latchkey' } }), (c) =>
    c.json(answer),
  ),
}
/** The guarded route as `auth.route()` declares it, with `query` as its request's query schema. */
const declared = (query?: z.ZodObject) => {
  const app = new OpenAPIHono()
  const ok = { 200: { description: 'ok', content: { 'application/json': { schema: z.object({ ok: z.boolean() }) } } } }
  app.openapi(
    auth.route({ method: 'get', path: '/x', auth: true, ...(query ? { request: { query } } : {}), responses: ok }),
    (c) => c.json(answer, 200),
  )
  return app
}
const limit = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) })
const apps = { ...layers, declared: declared(), validated: declared(limit) }
type Name = keyof typeof apps

/** Wall and CPU (every thread of the process, the thread pool included) µs per request, one at a time. */
const round = async (name: Name): Promise<{ wall: number; cpu: number }> => {
  const app = apps[name]
  const started = performance.now()
  const cpu = process.cpuUsage()
  for (let i = 0; i < perRound; i++) {
    const res = await app.request('/x?limit=20', { headers })
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}`)
    await res.arrayBuffer()
  }
  const used = process.cpuUsage(cpu)
  return { wall: ((performance.now() - started) * 1000) / perRound, cpu: (used.user + used.system) / perRound }
}

const names = Object.keys(apps) as Name[]
for (const name of names) await round(name) // warm-up
const runs: Record<Name, { wall: number; cpu: number }[]> = {
  none: [],
  latchkey: [],
  honoJwt: [],
  declared: [],
  validated: [],
}
for (let r = 0; r < rounds; r++)
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + r) % names.length] as Name
    runs[name].push(await round(name))
  }
db.close()
rmSync(dir, { recursive: true, force: true })

const per = (key: 'wall' | 'cpu') =>
  Object.fromEntries(names.map((n) => [n, percentile(sortedCopy(runs[n].map((x) => x[key])), 10)])) as Record<Name, number>
const wall = per('wall')
const cpu = per('cpu')
process.stdout.write(
  `${JSON.stringify({
    perRound,
    rounds,
    wall,
    cpu,
    layer: {
      latchkey: { wall: wall.latchkey - wall.none, cpu: cpu.latchkey - cpu.none },
      honoJwt: { wall: wall.honoJwt - wall.none, cpu: cpu.honoJwt - cpu.none },
      validation: { wall: wall.validated - wall.declared, cpu: cpu.validated - cpu.declared },
    },
  })}\n`,
)
