/**
 * `pnpm bench [--quick] [--only=1,2,…] [--profile]`: runs the scenarios of issue 5 against the built
 * reference server and the baselines, prints a markdown table, and writes every number to
 * `bench/results/<time>.json` (git-ignored). Exit status 0 whether targets pass or not; 1 when
 * the run itself fails. `--profile` makes every server write a V8 CPU profile to
 * `bench/results/profiles/<server>-<time>/`, one file per thread (read them with `node dist/profile-summary.js <file>`).
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_DIR, type Ctx, FULL, newSecret, QUICK } from './context.js'
import { choosePinning, startSmtpSink } from './procs.js'
import {
  apiKeys,
  limiterMemory,
  logins,
  type Outcome,
  prepareMain,
  type Row,
  runtimes,
  scale,
  signingKeys,
  signups,
  throughput,
} from './scenarios/index.js'
import { passwordHash } from './seed.js'
import { median } from './stats.js'

const quick = process.argv.includes('--quick')
const profile = process.argv.includes('--profile')
const only = new Set(
  (process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? '1,2,3,4,5,6,7,8,9')
    .split(',')
    .map((s) => s.trim()),
)
const started = performance.now()
const progress = (line: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`)

const fmtRatio = (r: number) => (Number.isFinite(r) ? r.toFixed(2) : 'n/a')

export const table = (rows: Row[], noise: number[]): string => {
  const lines = [
    '| # | Scenario | Latchkey | Baseline | Ratio | Target | Result |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.id} | ${r.scenario} | ${r.measured} | ${r.baseline} | ${fmtRatio(r.ratio)} | ${r.target} | ${r.pass ? 'pass' : '**miss**'} |`,
    ),
  ]
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.id}: ${r.note}`)
  const pct = (x: number) => `${Math.round(100 * x)}%`
  const busy = noise.length
    ? [
        `- Other processes used ${pct(Math.min(...noise))}–${pct(Math.max(...noise))} (median ${pct(median(noise))}) of the machine's CPU during the load runs.`,
      ]
    : []
  return [...lines, '', ...notes, ...busy].join('\n')
}

const machine = () => ({
  nproc: cpus().length,
  cpu: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
})

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-'))
  const smtp = await startSmtpSink()
  const pinning = choosePinning()
  progress(`${quick ? 'quick' : 'full'} run; ${pinning.note}; scratch ${dir}`)
  const ctx: Ctx = {
    quick,
    sizes: quick ? QUICK : FULL,
    dir,
    pinning,
    secret: newSecret(),
    hash: await passwordHash(),
    smtpUrl: smtp.url,
    profileDir: profile ? join(BENCH_DIR, 'results', 'profiles') : null,
    noise: [],
    progress,
  }
  const outcomes: Record<string, Outcome> = {}
  try {
    if (['1', '2', '3', '4', '5', '8', '9'].some((id) => only.has(id))) {
      progress('seeding the main data set')
      const data = await prepareMain(ctx)
      if (only.has('1') || only.has('2')) outcomes.throughput = await throughput(ctx, data)
      // Beside scenario 1: the same guarded read with an API key instead of an access token.
      if (only.has('1')) outcomes.apiKeys = await apiKeys(ctx, data)
      if (only.has('3') || only.has('4') || only.has('5')) outcomes.logins = await logins(ctx, data, (id) => only.has(id))
      // Beside scenario 3: a signup against hono/jwt's, the same hash.
      if (only.has('3')) outcomes.signups = await signups(ctx, data)
      if (only.has('8')) outcomes.runtimes = await runtimes(ctx, data)
      if (only.has('9')) outcomes.signingKeys = await signingKeys(ctx, data)
    }
    if (only.has('6')) outcomes.scale = await scale(ctx)
    if (only.has('7')) outcomes.limiter = await limiterMemory(ctx)
  } finally {
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const rows = Object.values(outcomes).flatMap((o) => o.rows)
  const seconds = (performance.now() - started) / 1000
  const info = machine()
  const header = `Latchkey bench (${quick ? 'quick' : 'full'}), ${new Date().toISOString()}: ${info.nproc} × ${info.cpu}, Node ${info.node}, ${pinning.note}, ${seconds.toFixed(0)} s`
  process.stdout.write(`\n${header}\n\n${table(rows, ctx.noise)}\n`)
  const resultsDir = join(BENCH_DIR, 'results')
  mkdirSync(resultsDir, { recursive: true })
  const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`)
  writeFileSync(
    file,
    `${JSON.stringify({ quick, seconds, machine: info, pinning, othersCpuShare: ctx.noise, rows, raw: Object.fromEntries(Object.entries(outcomes).map(([k, o]) => [k, o.raw])) }, null, 2)}\n`,
  )
  process.stdout.write(`\nJSON: ${file}\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
