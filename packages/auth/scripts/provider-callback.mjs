/**
 * The server's CPU per social sign-in callback, the provider's own time left out
 * (docs/PERFORMANCE.md#provider-sign-in-callbacks-issue-44): a real OpenID Connect provider
 * (`oidc-provider`, configured as packages/auth/test/oidc-provider.ts configures it, PKCE
 * required, the email claims in the ID token as Google puts them) runs in a child process
 * (provider-callback-idp.mjs), which also walks the browser through its pages, so
 * `process.cpuUsage()` here counts only the library's work: the flow's
 * claim and `state` check, the code exchange it sends and the answer it parses, the ID token's
 * verification (the JWKS fetched once and cached), the identity lookup and the sign-up, the
 * session and its cookies, and the work the request leaves for after its answer (`settled()`).
 * On SQLite (a temporary file) and on PostgreSQL (a schema of its own on PG_TEST_URL, skipped
 * with the reason when unreachable): a first sign-in (it creates the account), a returning one
 * (the identity is known, the same browser comes back with its device cookie), the start, and
 * for comparison a password login with a fast hasher from a known browser. Run it after
 * `pnpm --filter @latchkey/auth build`: `node scripts/provider-callback.mjs [--runs=200] [--userinfo]
 * [--profile=<folder>]` (`--userinfo`: the provider keeps the email claims for its userinfo
 * endpoint, one request more; `--profile`: a V8 CPU profile of each kind of request, which slows them).
 */
import { fork } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Hono } from 'hono'
import pg from 'pg'
import { createAuth } from '../dist/index.js'
import { migratePostgres, postgresStore } from '../dist/postgres/index.js'
import { migrateSqlite, openSqlite, sqliteStore } from '../dist/sqlite/index.js'
import { fastHasher } from '../dist/testing/index.js'

const APP = 'http://app.test'
const REDIRECT = `${APP}/auth/oauth/oidc/callback`
const CLIENT_ID = 'latchkey-bench'
const CLIENT_SECRET = 'client-secret-that-is-long-enough-0123456789'
const PASSWORD = 'correct horse battery staple'
const flag = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1]
const RUNS = Number(flag('runs') ?? 200)
const WARMUP = 30
const USERINFO = process.argv.includes('--userinfo')
const PROFILE = flag('profile')

/** A cookie jar: `name=value` of every cookie set (paths ignored). */
const jar = () => {
  const cookies = new Map()
  return {
    take(res) {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';')
        const at = pair.indexOf('=')
        if (/max-age=0/i.test(line) || at === pair.length - 1) cookies.delete(pair.slice(0, at))
        else cookies.set(pair.slice(0, at), pair.slice(at + 1))
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
  }
}

const micros = () => Number(process.hrtime.bigint() / 1000n)
/** With `--profile`: when each measured request of each kind ran (µs of the monotonic clock V8's profiles use). */
const windows = new Map()

/**
 * Runs `work`: its CPU (µs, this process, every thread, user and kernel: Linux splits the two only
 * by clock ticks) until the work it left for later is done, and its wall time (ms) to the answer.
 */
const measured = async (auth, kind, work) => {
  const from = micros()
  const before = process.cpuUsage()
  const started = performance.now()
  const res = await work()
  const wall = performance.now() - started
  await auth.settled()
  const { user, system } = process.cpuUsage(before)
  if (!windows.has(kind)) windows.set(kind, [])
  windows.get(kind).push([from, micros()])
  return { res, cpu: user + system, wall }
}

/** Starts V8's sampling profiler in this process (`--profile=<folder>`); `stop(name)` writes one profile per kind of request. */
const profiler = async () => {
  if (!PROFILE) return { stop: async () => {} }
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
  await session.post('Profiler.start')
  windows.clear()
  return {
    /** Keeps, for each kind, the samples taken inside its requests (idle time left out): a file for bench/dist/profile-summary.js. */
    async stop(name) {
      const { profile } = await session.post('Profiler.stop')
      session.disconnect()
      mkdirSync(PROFILE, { recursive: true })
      const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id))
      for (const [kind, spans] of windows) {
        const samples = []
        const timeDeltas = []
        let at = profile.startTime
        let span = 0
        profile.samples.forEach((id, i) => {
          at += profile.timeDeltas[i]
          while (span < spans.length && spans[span][1] < at) span++
          if (span < spans.length && spans[span][0] <= at && !idle.has(id)) {
            samples.push(id)
            timeDeltas.push(profile.timeDeltas[i])
          }
        })
        const file = join(PROFILE, `${name}-${kind}.cpuprofile`)
        writeFileSync(file, JSON.stringify({ ...profile, samples, timeDeltas }))
        console.log(`  ${file}: ${samples.length} samples in ${spans.length} requests`)
      }
    },
  }
}

let clients = 0
/** A client address of its own per request: no limit of the library counts two of them together. */
const nextIp = () => `10.${(++clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`

/** Clock ticks (USER_HZ, 100 a second) of the whole machine, busy and in all, and of the provider's process (Linux only). */
const ticks = () => {
  if (!existsSync('/proc/stat')) return null
  const all = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const provider = readFileSync(`/proc/${idp.pid}/stat`, 'utf8').split(') ')[1].split(' ').map(Number)
  const total = all.reduce((a, b) => a + b, 0)
  return { busy: total - all[3] - all[4], total, provider: provider[11] + provider[12], self: process.cpuUsage() }
}

/** How busy the machine was between two {@link ticks}: this process, the provider, everything else (% of all cores). */
const load = (from, to) => {
  if (!from || !to) return 'no /proc here'
  const total = to.total - from.total
  const self = (to.self.user + to.self.system - from.self.user - from.self.system) / 10_000
  const provider = to.provider - from.provider
  const share = (t) => `${Math.max(0, Math.round((100 * t) / total))} %`
  return `this process ${share(self)}, the provider ${share(provider)}, other processes (a database server among them) ${share(to.busy - from.busy - self - provider)} of the machine's CPU`
}

const bench = async (name, store, issuer) => {
  const auth = createAuth({
    secret: 'bench-secret-that-is-long-enough-0123456789',
    encryptionKeys: 'bench-encryption-key-long-enough-ABCDEFGHIJ',
    store,
    hasher: fastHasher(),
    trustProxy: true,
    publicUrl: APP,
    sendMail: () => {},
    log: (message) => console.log(`  log: ${message}`),
    providers: [{ id: 'oidc', name: 'Bench OIDC', issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }],
  })
  const app = new Hono()
  app.route('/auth', auth.routes)
  const request = (path, init, browser) =>
    app.request(path, { ...init, headers: { 'X-Forwarded-For': nextIp(), Cookie: browser.header(), ...init.headers } })

  /** Start → the provider's pages (not measured) → callback, in `browser`; returns the start's and the callback's costs. */
  const signIn = async (subject, browser, kind) => {
    const start = await measured(auth, 'start', () => request('/auth/oauth/oidc?returnTo=%2Faccount', {}, browser))
    browser.take(start.res)
    const location = await walk(start.res.headers.get('location') ?? '', subject)
    const callback = await measured(auth, kind, () => request(location.slice(APP.length), {}, browser))
    browser.take(callback.res)
    const session = callback.res.headers.getSetCookie().some((line) => line.startsWith('refresh_token='))
    if (callback.res.headers.get('location') !== '/account' || !session)
      throw new Error(`sign-in of ${subject} landed on ${callback.res.headers.get('location')}`)
    return { start, callback }
  }

  /** A password account and its browser, then one measured login from that browser. */
  const passwordLogin = async (i) => {
    const browser = jar()
    const email = `pw-${name}-${i}@example.com`
    const body = JSON.stringify({ name: `Pw ${i}`, email, password: PASSWORD })
    const up = await request('/auth/signup', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } }, browser)
    if (up.status !== 201) throw new Error(`signup answered ${up.status}`)
    browser.take(up)
    await auth.settled()
    const json = JSON.stringify({ email, password: PASSWORD })
    const login = await measured(auth, 'login', () =>
      request('/auth/login', { method: 'POST', body: json, headers: { 'Content-Type': 'application/json' } }, browser),
    )
    if (login.res.status !== 200) throw new Error(`login answered ${login.res.status}`)
    return login
  }

  const samples = { start: [], first: [], returning: [], login: [] }
  let profiling = null
  let from = null
  for (let i = 0; i < WARMUP + RUNS; i++) {
    if (i === WARMUP) {
      profiling = await profiler()
      from = ticks()
    }
    const subject = `${name}-${i}`
    const browser = jar()
    const first = await signIn(subject, browser, 'first')
    // The same browser comes back: its flow cookie is gone, its device cookie kept.
    const again = await signIn(subject, browser, 'returning')
    const login = await passwordLogin(i)
    if (i < WARMUP) continue
    samples.start.push(first.start, again.start)
    samples.first.push(first.callback)
    samples.returning.push(again.callback)
    samples.login.push(login)
  }
  console.log(`${name}: ${load(from, ticks())} (${cpus().length} cores)`)
  await profiling?.stop(name)
  return samples
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]

const rowsOf = (name, s) => {
  const at = (runs, key, p) =>
    percentile(
      runs.map((run) => run[key]),
      p,
    )
  const us = (value) => `${Math.round(value).toLocaleString('en')} µs`
  const row = (what, runs) =>
    `| ${name} | ${what} | ${us(at(runs, 'cpu', 0.5))} | ${us(at(runs, 'cpu', 0.9))} | ${at(runs, 'wall', 0.5).toFixed(2)} ms |`
  return [
    row('callback, first sign-in (creates the account)', s.first),
    row('callback, returning (identity known)', s.returning),
    row('start (flow stored, 302 to the provider)', s.start),
    row('password login, fast hasher, known browser', s.login),
  ]
}

const onSqlite = async (issuer) => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-callback-'))
  const db = openSqlite(join(dir, 'auth.db'))
  try {
    migrateSqlite(db)
    return rowsOf('SQLite', await bench('sqlite', sqliteStore(db), issuer))
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const onPostgres = async (issuer) => {
  const url = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await admin.connect()
  } catch (err) {
    console.log(`PostgreSQL skipped: ${url} is unreachable (${err.message})`)
    return []
  }
  const schema = `callback_${Date.now()}`
  await admin.query(`create schema ${schema}`)
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 })
  try {
    await migratePostgres(pool, { migrationsSchema: schema })
    return rowsOf('PostgreSQL', await bench('postgres', postgresStore(pool), issuer))
  } finally {
    await pool.end()
    await admin.query(`drop schema ${schema} cascade`)
    await admin.end()
  }
}

const idp = fork(
  fileURLToPath(new URL('provider-callback-idp.mjs', import.meta.url)),
  [REDIRECT, CLIENT_ID, CLIENT_SECRET, ...(USERINFO ? ['--userinfo'] : [])],
  {
    stdio: 'inherit',
    execArgv: [],
  },
)
/** The browser's way through the provider's pages, walked by the provider's process: the callback URL it ends at. */
const walk = (url, subject) =>
  new Promise((resolve, reject) => {
    idp.once('message', ({ callback, error }) => (callback ? resolve(callback) : reject(new Error(error))))
    idp.send({ walk: url, subject })
  })

const main = async () => {
  const { issuer } = await new Promise((resolve, reject) => {
    idp.once('message', resolve)
    idp.once('exit', (code) => reject(new Error(`the provider exited (${code})`)))
  })
  try {
    const rows = [...(await onSqlite(issuer)), ...(await onPostgres(issuer))]
    const where = USERINFO ? 'the email claims from userinfo' : 'the email claims in the ID token'
    console.log(`\n${RUNS} sign-ins after ${WARMUP} of warm-up, provider in its own process (${where}):\n`)
    console.log('| store | request | CPU p50 | CPU p90 | wall p50 (callbacks: with the provider) |\n|---|---|---|---|---|')
    for (const row of rows) console.log(row)
  } finally {
    idp.removeAllListeners('exit')
    idp.kill()
  }
}

await main()
