#!/usr/bin/env node
/**
 * Throughput of one vs two reference-server instances on one PostgreSQL database (and one on
 * SQLite, for reference), measured with autocannon from the bench/ workspace package.
 *
 *   pnpm --filter @latchkey/todo-api build
 *   node apps/todo-api/scripts/instances-throughput.mjs [--seconds=10] [--connections=20]
 *
 * Uses PG_TEST_URL (default postgres://postgres@127.0.0.1:5432/test) and a fresh schema it drops
 * afterwards. Each configuration gets the same total connections, split evenly across its
 * instances (what a round-robin load balancer does), and the same signed-up users, each with
 * 50 todos. Scenarios: GET /todos (guard: JWT + live-session lookup; then the list query) and
 * POST /todos. Prints a markdown table: requests per second summed over the instances, the
 * worst instance's p99 latency, and CPU milliseconds per request spent by the servers, by the
 * PostgreSQL backends serving them (read from /proc, so Linux only) and by the load generator;
 * each the median of the rounds.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const APP_DIR = fileURLToPath(new URL('..', import.meta.url))
const MAIN = join(APP_DIR, 'dist', 'main.js')
const autocannon = createRequire(join(APP_DIR, '..', '..', 'bench', 'package.json'))('autocannon')

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
const SECONDS = arg('seconds', 10)
const CONNECTIONS = arg('connections', 20)
const ROUNDS = arg('rounds', 3)
const USERS = 20
const PG_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const SECRET = randomBytes(32).toString('base64url')

// CPU seconds from /proc (Linux; clock ticks of 1/100 s): where the machine's cores went.
const TICK_MS = 10
const cpuMs = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return 0
  }
}
/** CPU of the PostgreSQL backends serving our instances (found by application_name), per pid. */
const backendCpu = async (admin) => {
  const { rows } = await admin.query("select pid from pg_stat_activity where application_name like 'lk-bench-%'")
  return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]))
}
/** CPU used between two snapshots: a backend opened meanwhile counts whole, one closed meanwhile is lost. */
const cpuBetween = (before, after) => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0)

const start = (databaseUrl, name) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        NODE_ENV: 'development',
        AUTH_SECRET: SECRET,
        DATABASE_URL: databaseUrl.startsWith('postgres') ? `${databaseUrl}&application_name=lk-bench-${name}` : databaseUrl,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      out += chunk
      const port = /listening on http:\/\/\S+:(\d+)/.exec(out)?.[1]
      // Request lines would otherwise fill the pipe and stall the server.
      if (port) {
        child.stdout.removeAllListeners('data')
        child.stdout.resume()
        resolve({
          base: `http://127.0.0.1:${port}`,
          pid: child.pid,
          stop: () => new Promise((done) => child.once('exit', done).kill('SIGTERM')),
        })
      }
    })
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${out}`)))
  })

const post = async (base, path, body, token) => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
  return res.json()
}

/** Signs up USERS accounts with 50 todos each; returns their access tokens. */
const seed = async (base) => {
  const tokens = []
  for (let i = 0; i < USERS; i++) {
    const { accessToken } = await post(base, '/auth/signup', {
      name: `Bench ${i}`,
      email: `bench-${i}-${randomBytes(3).toString('hex')}@example.com`,
      password: 'plum tractor lantern bench',
    })
    for (let t = 0; t < 50; t++) await post(base, '/todos', { title: `todo ${t}` }, accessToken)
    tokens.push(accessToken)
  }
  return tokens
}

/** One autocannon run per instance, at once, connections split evenly; the summed req/s and CPU per request. */
const load = async (admin, servers, tokens, request, seconds) => {
  const bases = servers.map((s) => s.base)
  const cpuBefore = {
    server: servers.reduce((n, s) => n + cpuMs(s.pid), 0),
    postgres: await backendCpu(admin),
    self: process.cpuUsage(),
  }
  const per = Math.max(1, Math.floor(CONNECTIONS / bases.length))
  let next = 0
  const results = await Promise.all(
    bases.map((base) =>
      autocannon({
        url: base,
        connections: per,
        duration: seconds,
        requests: [request],
        // Each connection is one user: round-robin over the seeded accounts.
        setupClient: (client) =>
          client.setHeaders({ authorization: `Bearer ${tokens[next++ % tokens.length]}`, ...request.headers }),
      }),
    ),
  )
  const bad = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0)
  if (bad > 0) throw new Error(`${bad} requests failed or answered non-2xx`)
  const total = results.reduce((n, r) => n + r.requests.total, 0)
  const self = process.cpuUsage(cpuBefore.self)
  return {
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    // CPU milliseconds per request: the servers, the PostgreSQL backends serving them, the load generator.
    serverMs: (servers.reduce((n, s) => n + cpuMs(s.pid), 0) - cpuBefore.server) / total,
    postgresMs: cpuBetween(cpuBefore.postgres, await backendCpu(admin)) / total,
    loadMs: (self.user + self.system) / 1000 / total,
  }
}

const SCENARIOS = [
  { name: 'GET /todos (20 newest of 50)', request: { method: 'GET', path: '/todos' } },
  {
    name: 'POST /todos',
    request: { method: 'POST', path: '/todos', headers: { 'content-type': 'application/json' }, body: '{"title":"bench"}' },
  },
]

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const main = async () => {
  const schema = `lk_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  const pgUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
  const servers = []
  try {
    const sqlite = await start(`file:${join(mkdtempSync(join(tmpdir(), 'lk-bench-')), 'todo.db')}`, 'sqlite')
    const [a, b] = await Promise.all([start(pgUrl, 'a'), start(pgUrl, 'b')])
    servers.push(sqlite, a, b)
    const pgTokens = await seed(a.base)
    const sqliteTokens = await seed(sqlite.base)
    const configs = [
      { name: '1 instance, SQLite', servers: [sqlite], tokens: sqliteTokens },
      { name: '1 instance, PostgreSQL', servers: [a], tokens: pgTokens },
      { name: '2 instances, PostgreSQL', servers: [a, b], tokens: pgTokens },
    ]
    const rows = []
    for (const scenario of SCENARIOS) {
      const samples = new Map(configs.map((c) => [c.name, []]))
      // Rounds interleave the configurations, so drift (other load, table growth) hits each alike.
      for (let round = 0; round < ROUNDS; round++)
        for (const config of configs) {
          await load(admin, config.servers, config.tokens, scenario.request, 2) // warm-up
          const result = await load(admin, config.servers, config.tokens, scenario.request, SECONDS)
          samples.get(config.name).push(result)
          process.stderr.write(`${scenario.name} | ${config.name} | round ${round + 1}: ${result.rps.toFixed(0)} req/s\n`)
        }
      for (const config of configs) {
        const runs = samples.get(config.name)
        const ms = (key) =>
          key === 'postgresMs' && config.name.includes('SQLite') ? '–' : median(runs.map((r) => r[key])).toFixed(2)
        rows.push(
          `| ${scenario.name} | ${config.name} | ${median(runs.map((r) => r.rps)).toFixed(0)} | ${median(runs.map((r) => r.p99))} | ` +
            `${ms('serverMs')} | ${ms('postgresMs')} | ${ms('loadMs')} |`,
        )
      }
    }
    console.log(
      `${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; ${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds (median)\n`,
    )
    console.log(
      '| Scenario | Configuration | req/s | p99 ms | CPU ms/req: servers | PostgreSQL | load generator |\n|---|---|---|---|---|---|---|',
    )
    console.log(rows.join('\n'))
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    await admin.query(`drop schema ${schema} cascade`)
    await admin.end()
  }
}

await main()
