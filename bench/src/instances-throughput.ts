/**
 * `pnpm --filter @latchkey/bench instances [--seconds=10] [--connections=20] [--rounds=3]`:
 * throughput of one vs two reference-server instances on one PostgreSQL database, and one on
 * SQLite for reference, with the bench's own process handling (pinned servers, the load
 * generator in its own process, CPU from /proc).
 *
 * Uses PG_TEST_URL (default postgres://postgres@127.0.0.1:5432/test) and a fresh schema it drops
 * afterwards. Each configuration gets the same total connections, split evenly across its
 * instances (what a round-robin load balancer does), and the same signed-up users, each with
 * 50 todos. Scenarios: GET /todos (guard: JWT + live-session lookup; then the list query) and
 * POST /todos. Prints a markdown table: requests per second summed over the instances, the
 * worst instance's p99 latency, and CPU milliseconds per request spent by the servers, by the
 * PostgreSQL backends serving them (found by application_name) and by the load generator; each
 * the median of the rounds, which interleave the configurations so drift hits each alike.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { APP_MAIN, DIST, newSecret } from './context.js'
import type { Job, JobResult, Variant } from './job.js'
import { choosePinning, cpuMs, type Pinning, type Running, runJson, startServer, writeJson } from './procs.js'
import { median } from './stats.js'

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
const SECONDS = arg('seconds', 10)
const CONNECTIONS = arg('connections', 20)
const ROUNDS = arg('rounds', 3)
const WARMUP_SECONDS = 2
const USERS = 20
const PG_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

interface Setup {
  dir: string
  pinning: Pinning
  secret: string
}

/** CPU ms of the PostgreSQL backends serving our instances (found by application_name), per pid. */
const backendCpu = async (admin: pg.Client): Promise<Map<number, number>> => {
  const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where application_name like 'lk-bench-%'")
  return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]))
}
/** CPU used between two snapshots: a backend opened meanwhile counts whole, one closed meanwhile is lost. */
const cpuBetween = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0)

const start = (setup: Setup, name: string, databaseUrl: string): Promise<Running> =>
  startServer({
    name,
    script: APP_MAIN,
    cores: setup.pinning.server,
    dir: setup.dir,
    env: {
      PORT: '0',
      NODE_ENV: 'development',
      AUTH_SECRET: setup.secret,
      DATABASE_URL: databaseUrl.startsWith('postgres') ? `${databaseUrl}&application_name=lk-bench-${name}` : databaseUrl,
    },
  })

const post = async (base: string, path: string, body: unknown, token?: string): Promise<unknown> => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
  return res.json()
}

/** Signs up USERS accounts with 50 todos each, through the API; returns their access tokens. */
const seedOver = async (base: string): Promise<string[]> => {
  const tokens: string[] = []
  for (let i = 0; i < USERS; i++) {
    const { accessToken } = (await post(base, '/auth/signup', {
      name: `Bench ${i}`,
      email: `bench-${i}-${randomBytes(3).toString('hex')}@example.com`,
      password: 'plum tractor lantern bench',
    })) as { accessToken: string }
    for (let t = 0; t < 50; t++) await post(base, '/todos', { title: `todo ${t}` }, accessToken)
    tokens.push(accessToken)
  }
  return tokens
}

interface Sample {
  rps: number
  p99: number
  serverMs: number
  postgresMs: number
  loadMs: number
}

/** One load-generator process per instance, all at once, connections split evenly. */
const load = async (setup: Setup, admin: pg.Client, servers: Running[], variant: Variant, round: number): Promise<Sample> => {
  const per = Math.max(1, Math.floor(CONNECTIONS / servers.length))
  const before = { server: servers.reduce((n, s) => n + cpuMs(s.pid), 0), postgres: await backendCpu(admin) }
  const results = await Promise.all(
    servers.map((server, i) => {
      const job: Job = {
        base: server.base,
        addressPrefix: round * 16 + i,
        streams: [
          {
            name: server.name,
            connections: per,
            variants: [variant],
            seconds: SECONDS,
            maxRequests: SECONDS * 100_000,
            warmupSeconds: WARMUP_SECONDS,
          },
        ],
      }
      const file = writeJson(join(setup.dir, `instances-${round}-${server.name}.json`), job)
      return runJson<JobResult>({
        script: join(DIST, 'load.js'),
        args: [file],
        cores: setup.pinning.load,
        timeoutMs: (SECONDS + WARMUP_SECONDS + 60) * 1000,
      })
    }),
  )
  const streams = results.flatMap((r) => r.streams)
  const bad = streams.reduce(
    (n, s) =>
      n + s.errors + s.timeouts + Object.entries(s.statuses).reduce((m, [code, k]) => m + (code.startsWith('2') ? 0 : k), 0),
    0,
  )
  if (bad > 0) throw new Error(`${bad} requests failed or answered non-2xx`)
  // CPU is read around the whole job, warm-up included, so it is divided by every answer.
  const answered = streams.reduce((n, s) => n + s.requests + s.warmupRequests, 0)
  return {
    rps: streams.reduce((n, s) => n + s.rps, 0),
    p99: Math.max(...streams.map((s) => s.latency.p99)),
    serverMs: (servers.reduce((n, s) => n + cpuMs(s.pid), 0) - before.server) / answered,
    postgresMs: cpuBetween(before.postgres, await backendCpu(admin)) / answered,
    loadMs: results.reduce((n, r) => n + r.loadCpuMs, 0) / answered,
  }
}

const SCENARIOS: { name: string; variant: (tokens: string[]) => Variant }[] = [
  {
    name: 'GET /todos (20 newest of 50)',
    variant: (tokens) => ({
      label: 'read',
      method: 'GET',
      path: '/todos',
      headers: tokens.map((t) => ({ authorization: `Bearer ${t}` })),
    }),
  },
  {
    name: 'POST /todos',
    variant: (tokens) => ({
      label: 'write',
      method: 'POST',
      path: '/todos',
      headers: tokens.map((t) => ({ authorization: `Bearer ${t}` })),
      bodies: ['{"title":"bench"}'],
    }),
  },
]

const main = async () => {
  const setup: Setup = { dir: mkdtempSync(join(tmpdir(), 'lk-instances-')), pinning: choosePinning(), secret: newSecret() }
  const schema = `lk_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  const pgUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
  const servers: Running[] = []
  try {
    const sqlite = await start(setup, 'sqlite', `file:${join(setup.dir, 'todo.db')}`)
    servers.push(sqlite)
    // One at a time: both migrate the same schema (under an advisory lock, but a clean log is clearer).
    const a = await start(setup, 'a', pgUrl)
    servers.push(a)
    const b = await start(setup, 'b', pgUrl)
    servers.push(b)
    const pgTokens = await seedOver(a.base)
    const sqliteTokens = await seedOver(sqlite.base)
    const configs = [
      { name: '1 instance, SQLite', servers: [sqlite], tokens: sqliteTokens },
      { name: '1 instance, PostgreSQL', servers: [a], tokens: pgTokens },
      { name: '2 instances, PostgreSQL', servers: [a, b], tokens: pgTokens },
    ]
    const rows: string[] = []
    for (const scenario of SCENARIOS) {
      const samples = new Map<string, Sample[]>(configs.map((c) => [c.name, []]))
      for (let round = 0; round < ROUNDS; round++)
        for (const config of configs) {
          const result = await load(setup, admin, config.servers, scenario.variant(config.tokens), round)
          samples.get(config.name)?.push(result)
          process.stderr.write(`${scenario.name} | ${config.name} | round ${round + 1}: ${result.rps.toFixed(0)} req/s\n`)
        }
      for (const config of configs) {
        const runs = samples.get(config.name) ?? []
        const of = (key: keyof Sample) => median(runs.map((r) => r[key]))
        const ms = (key: keyof Sample) => (key === 'postgresMs' && config.name.includes('SQLite') ? '–' : of(key).toFixed(2))
        rows.push(
          `| ${scenario.name} | ${config.name} | ${of('rps').toFixed(0)} | ${of('p99').toFixed(1)} | ` +
            `${ms('serverMs')} | ${ms('postgresMs')} | ${ms('loadMs')} |`,
        )
      }
    }
    console.log(
      `${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; ${setup.pinning.note}; ` +
        `${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds (median)\n`,
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
