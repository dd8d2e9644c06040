/**
 * What every scenario shares: the run's settings, paths, the pinned cores, and helpers to
 * start the reference server and the baselines and to hand a job to the load generator.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Job, JobResult, MeasuredJob, Stream } from './job.js'
import {
  choosePinning,
  cpuMs,
  machineMs,
  mainThreadCpuMs,
  type Pinning,
  type Running,
  runJson,
  startServer,
  startSmtpSink,
  writeJson,
} from './procs.js'
import { accessToken, passwordHash, type SeededUser } from './seed.js'

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url))
export const DIST = join(BENCH_DIR, 'dist')
export const APP_MAIN = join(BENCH_DIR, '..', 'apps', 'todo-api', 'dist', 'main.js')

/** Durations and sample counts; `--quick` shrinks every one of them. */
export interface Sizes {
  /** Warm-up and measured seconds of a throughput run. */
  warmup: number
  seconds: number
  /** Rounds of the interleaved throughput comparisons (the median is kept). */
  rounds: number
  loginSamples: number
  pairSamples: number
  stormSeconds: number
}

export const FULL: Sizes = { warmup: 3, seconds: 10, rounds: 3, loginSamples: 150, pairSamples: 300, stormSeconds: 12 }
export const QUICK: Sizes = { warmup: 1, seconds: 3, rounds: 1, loginSamples: 40, pairSamples: 100, stormSeconds: 4 }

export interface Ctx {
  quick: boolean
  sizes: Sizes
  dir: string
  pinning: Pinning
  secret: string
  /** argon2id hash of the seeded password at the default parameters. */
  hash: string
  smtpUrl: string
  /** `--profile`: node flags that make every server write a CPU profile here on exit. */
  profileDir: string | null
  /** Share of the machine's CPU other processes used during each load run. */
  noise: number[]
  progress(line: string): void
}

/**
 * One folder per server: a server's worker threads (the hashing threads) write profiles of their
 * own, under Node's default names (`CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile`, the main
 * thread's `.0.`), where one `--cpu-prof-name` would have them overwrite each other.
 */
const profiling = (ctx: Ctx, name: string): string[] =>
  ctx.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(ctx.profileDir, `${name}-${Date.now()}`)}`] : []

let jobs = 0

/**
 * Runs one job against `server` in the load-generator process (pinned to the load core) and
 * returns its result, with the server's CPU time per request and how busy the rest of the
 * machine was meanwhile (other processes make every number noisier).
 */
export const runLoad = async (ctx: Ctx, server: Running, streams: Stream[]): Promise<MeasuredJob> => {
  jobs++
  const job: Job = { base: server.base, streams, addressPrefix: jobs }
  const file = writeJson(join(ctx.dir, `job-${jobs}.json`), job)
  const longest = Math.max(...streams.map((s) => s.warmupSeconds + s.seconds))
  const [cpu0, main0, m0] = [cpuMs(server.pid), mainThreadCpuMs(server.pid), machineMs()]
  const result = await runJson<JobResult>({
    script: join(DIST, 'load.js'),
    args: [file],
    cores: ctx.pinning.load,
    timeoutMs: (longest + 60) * 1000,
  })
  const [cpu1, main1, m1] = [cpuMs(server.pid), mainThreadCpuMs(server.pid), machineMs()]
  const requests = result.streams.reduce((n, s) => n + s.requests + s.warmupRequests, 0)
  const others = m1.busy - m0.busy - (cpu1 - cpu0) - result.loadCpuMs
  const othersCpuShare = Math.max(0, others / Math.max(1, m1.total - m0.total))
  ctx.noise.push(othersCpuShare)
  const per = Math.max(1, requests)
  return {
    ...result,
    serverCpuMsPerRequest: (cpu1 - cpu0) / per,
    serverMainThreadCpuMsPerRequest: (main1 - main0) / per,
    othersCpuShare,
  }
}

/**
 * The reference server as production runs it: built, NODE_ENV=production, SMTP configured, one
 * trusted proxy. `script` is another build's main.js when comparing builds (compare.ts).
 */
export const startApp = (
  ctx: Ctx,
  name: string,
  dbPath: string,
  script = APP_MAIN,
  runtime?: string[],
  env: Record<string, string> = {},
): Promise<Running> =>
  startServer({
    name,
    script,
    ...(runtime ? { runtime } : {}),
    nodeArgs: profiling(ctx, name),
    cores: ctx.pinning.server,
    dir: ctx.dir,
    env: { ...appEnv(ctx, dbPath), ...env },
  })

/** Sealed data's key (AUTH_ENCRYPTION_KEY, required in production): one per run, so every server of it opens the same file. */
const ENCRYPTION_KEY = randomBytes(32).toString('base64url')

/** The environment of the reference server in production on `dbPath`. */
export const appEnv = (ctx: Ctx, dbPath: string): Record<string, string> => ({
  AUTH_SECRET: ctx.secret,
  AUTH_ENCRYPTION_KEY: ENCRYPTION_KEY,
  PORT: '0',
  DATABASE_URL: `file:${dbPath}`,
  NODE_ENV: 'production',
  SMTP_URL: ctx.smtpUrl,
  TRUST_PROXY: 'true',
})

export const startBaseline = (ctx: Ctx, mode: 'bare' | 'jwt' | 'latchkey' | 'lean', dbPath: string): Promise<Running> =>
  startServer({
    name: `baseline-${mode}`,
    script: join(DIST, 'servers', 'baseline.js'),
    args: [mode],
    nodeArgs: profiling(ctx, `baseline-${mode}`),
    cores: ctx.pinning.server,
    dir: ctx.dir,
    env: { AUTH_SECRET: ctx.secret, PORT: '0', DATABASE_PATH: dbPath, NODE_ENV: 'production', ARGON2_HASH: ctx.hash },
  })

/** Starts the reference server once on a new file, so its own migrations create every table, and stops it. */
export const migrateWithApp = async (ctx: Ctx, dbPath: string): Promise<void> => {
  const app = await startApp(ctx, `migrate-${jobs++}`, dbPath)
  await app.stop()
}

export const newSecret = (): string => randomBytes(32).toString('base64url')

/** A 15-minute access token for a seeded session, signed with this run's secret. */
export const accessTokenFor = (ctx: Ctx, user: SeededUser): Promise<string> => accessToken(ctx.secret, user)

/**
 * Runs a stand-alone measurement script (compare.js, layers.js): a scratch folder, the SMTP sink
 * and a context for `seconds`-long load runs around `body`; every server it adds to `servers` is
 * stopped and the folder removed afterwards, then the process exits (1 when `body` failed).
 * `--profile`: every server writes CPU profiles, as `pnpm bench --profile` makes them.
 */
export const scratchScript = (
  name: string,
  sizes: Partial<Sizes>,
  body: (ctx: Ctx, servers: Running[]) => Promise<void>,
): void => {
  const main = async () => {
    const dir = mkdtempSync(join(tmpdir(), `latchkey-${name}-`))
    const smtp = await startSmtpSink()
    const ctx: Ctx = {
      quick: false,
      sizes: { ...FULL, warmup: 1, ...sizes },
      dir,
      pinning: choosePinning(),
      secret: newSecret(),
      hash: await passwordHash(),
      smtpUrl: smtp.url,
      profileDir: process.argv.includes('--profile') ? join(BENCH_DIR, 'results', 'profiles') : null,
      noise: [],
      progress: (line) => process.stderr.write(`${line}\n`),
    }
    const servers: Running[] = []
    try {
      await body(ctx, servers)
    } finally {
      await Promise.all(servers.map((s) => s.stop()))
      await smtp.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exit(1)
    },
  )
}

/** A script's `<name>=<build dir>` arguments (copies of apps/todo-api/dist) and its `--name=value` options. */
export const scriptArgs = (args: string[]) => ({
  option: (name: string, fallback: string): string =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback,
  builds: args
    .filter((a) => !a.startsWith('--'))
    .map((spec) => {
      const [name, dir] = spec.split('=')
      if (!name || !dir) throw new Error(`a build is <name>=<dir>, not ${spec}`)
      return { name, dir: resolve(dir) }
    }),
})
