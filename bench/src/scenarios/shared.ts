/**
 * What the scenarios share: the table row and its verdict, number formats, the closed-loop
 * load of one variant, the main data set, and interleaved rounds of several servers.
 */
import { join } from 'node:path'
import { type Ctx, migrateWithApp, runLoad } from '../context.js'
import type { MeasuredJob, Stream, StreamResult, Variant } from '../job.js'
import type { Running } from '../procs.js'
import { PASSWORD, type SeededUser, seed } from '../seed.js'
import { median } from '../stats.js'

export interface Row {
  id: string
  scenario: string
  measured: string
  baseline: string
  ratio: number
  target: string
  pass: boolean
  note?: string
}

export interface Outcome {
  rows: Row[]
  raw: Record<string, unknown>
}

export const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`
export const rps = (x: number) => `${Math.round(x).toLocaleString('en-US')} req/s`
export const round = (x: number, digits = 3) => Number(x.toFixed(digits))
export const us = (x: number) => `${x.toFixed(1)} µs`

/** What a ratio must meet: at least, at most, or within a tolerance of 1; `null` when the row only informs. */
export type Bound = { atLeast: number } | { atMost: number } | { within: number } | null

/** The row of `measured ÷ baseline`: its target text and its verdict both come from `bound`. */
export const compared = (
  id: string,
  scenario: string,
  [measured, baseline]: [number, number],
  show: (x: number) => string,
  bound: Bound,
  note?: string,
): Row => {
  const ratio = measured / baseline
  const [target, pass]: [string, boolean] =
    bound === null
      ? ['none', true]
      : 'atLeast' in bound
        ? [`≥ ${bound.atLeast}`, ratio >= bound.atLeast]
        : 'atMost' in bound
          ? [`≤ ${bound.atMost}`, ratio <= bound.atMost]
          : [`${1 - bound.within} – ${1 + bound.within}`, Math.abs(ratio - 1) <= bound.within]
  return { id, scenario, measured: show(measured), baseline: show(baseline), ratio, target, pass, ...(note ? { note } : {}) }
}

/** Non-2xx answers and socket errors of a stream, as a note; empty when all went well. */
export const problems = (r: StreamResult, expected = /^2/): string => {
  const bad = Object.entries(r.statuses).filter(([code]) => !expected.test(code))
  const parts = bad.map(([code, n]) => `${n}×${code}`)
  if (r.errors) parts.push(`${r.errors} socket errors`)
  return parts.length ? `${r.name}: ${parts.join(', ')}` : ''
}

export const closedLoop = (ctx: Ctx, name: string, variant: Variant, connections = 32) => ({
  name,
  connections,
  variants: [variant],
  seconds: ctx.sizes.seconds,
  maxRequests: ctx.sizes.seconds * 100_000,
  warmupSeconds: ctx.sizes.warmup,
})

/** Requests one at a time (the logins of scenarios 3 and 8, `compare.js http --login`): `requests` of them after `warmup` thrown away. */
export const oneAtATime = (name: string, variant: Variant, requests: number, warmup = 5): Stream => ({
  name,
  connections: 1,
  variants: [variant],
  seconds: 60,
  maxRequests: requests,
  warmupSeconds: warmup > 0 ? 5 : 0,
  warmupMaxRequests: warmup,
})

/** The read of scenarios 1, 5 and 6: the 20 newest todos, with each request's headers in turn. */
export const readTodos = (headers: Record<string, string>[]): Variant => ({
  label: 'read',
  method: 'GET',
  path: '/todos?limit=20',
  headers,
})

/** The write of scenario 2: one new todo, with each request's headers in turn. */
export const writeTodo = (headers: Record<string, string>[]): Variant => ({
  label: 'write',
  method: 'POST',
  path: '/todos',
  headers,
  bodies: [JSON.stringify({ title: 'Benchmark todo: buy milk' })],
})

export const bearer = (tokens: string[]) => tokens.map((t) => ({ authorization: `Bearer ${t}` }))
export const userHeader = (users: SeededUser[]) => users.map((u) => ({ 'x-user-id': u.id }))
export const loginBody = (email: string, password: string) => JSON.stringify({ email, password })

/** Each of `accounts` signing in with the seeded password, every request from its own address (so only per-email limits apply). */
export const loginsOf = (label: string, accounts: SeededUser[]): Variant => ({
  label,
  method: 'POST',
  path: '/auth/login',
  headers: [{}],
  bodies: accounts.map((u) => loginBody(u.email, PASSWORD)),
  uniqueForwardedFor: true,
})

/**
 * Scenario 5's load: guarded reads at 200 a second, evenly spaced over 4 connections, and, in
 * the storm, 8 clients logging in as fast as answers come, each login a new browser's.
 */
export const stormStreams = (seconds: number, readHeaders: Record<string, string>[], accounts: SeededUser[]) => ({
  reads: {
    name: 'reads',
    connections: 4,
    overallRate: 200,
    variants: [readTodos(readHeaders)],
    seconds,
    maxRequests: seconds * 200,
    warmupSeconds: 2,
  } satisfies Stream,
  storm: {
    name: 'storm',
    connections: 8,
    variants: [loginsOf('login', accounts)],
    seconds: seconds + 1,
    maxRequests: (seconds + 1) * 400,
    warmupSeconds: 2,
  } satisfies Stream,
})

/** The main data set of scenarios 1–5: readers with todos, writers, and accounts that only log in. */
export interface MainData {
  dbPath: string
  readers: SeededUser[]
  writers: SeededUser[]
  logins: SeededUser[]
}

export const prepareMain = async (ctx: Ctx): Promise<MainData> => {
  const dbPath = join(ctx.dir, 'main.db')
  await migrateWithApp(ctx, dbPath)
  const readers = seed(dbPath, { prefix: 'reader', users: 10, todosPerUser: 100, hash: ctx.hash })
  const writers = seed(dbPath, { prefix: 'writer', users: 10, todosPerUser: 0, hash: ctx.hash })
  const logins = seed(dbPath, { prefix: 'login', users: 4000, todosPerUser: 0, hash: ctx.hash })
  return { dbPath, readers, writers, logins }
}

/** One closed-loop run: its stream, the server's CPU per request, the machine's other load. */
export interface Run extends StreamResult {
  serverCpuMsPerRequest: number
  serverMainThreadCpuMsPerRequest: number
  othersCpuShare: number
}

export const single = (job: MeasuredJob): Run => {
  const [stream] = job.streams
  if (!stream) throw new Error('the load generator returned no stream')
  const { serverCpuMsPerRequest, serverMainThreadCpuMsPerRequest, othersCpuShare } = job
  return { ...stream, serverCpuMsPerRequest, serverMainThreadCpuMsPerRequest, othersCpuShare }
}

/**
 * Runs every server's load `rounds` times, in rotating order (so drift hits all alike), and keeps
 * each run. `stream` shapes one run's load (`round` counts from 0): closed-loop at 32 connections unless given.
 */
export const interleaved = async (
  ctx: Ctx,
  runs: { key: string; server: Running; variant: Variant }[],
  stream: (name: string, variant: Variant, round: number) => Stream = (name, variant) => closedLoop(ctx, name, variant),
): Promise<Record<string, Run[]>> => {
  const out: Record<string, Run[]> = {}
  for (let r = 0; r < ctx.sizes.rounds; r++) {
    for (let i = 0; i < runs.length; i++) {
      const run = runs[(i + r) % runs.length]
      if (!run) continue
      const result = single(await runLoad(ctx, run.server, [stream(run.key, run.variant, r)]))
      ctx.progress(
        `  round ${r + 1}/${ctx.sizes.rounds} ${run.key}: ${Math.round(result.rps)} req/s, ` +
          `${(result.serverCpuMsPerRequest * 1000).toFixed(0)} µs CPU/req, others ${(100 * result.othersCpuShare).toFixed(0)}% CPU`,
      )
      out[run.key] = [...(out[run.key] ?? []), result]
    }
  }
  return out
}

export const medianRps = (results: Run[] | undefined) => median((results ?? []).map((r) => r.rps))
export const medianCpu = (results: Run[] | undefined) => median((results ?? []).map((r) => r.serverCpuMsPerRequest))
/** The median CPU per request of the server's main thread alone. */
export const medianMainCpu = (results: Run[] | undefined) => median((results ?? []).map((r) => r.serverMainThreadCpuMsPerRequest))
/** Numbers of each run without its samples, for the JSON file. */
export const strip = (m: Record<string, Run[]>) =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.map(({ samples: _, ...rest }) => rest)]))
