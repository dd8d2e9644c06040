/**
 * Scenario 8: the reference server on Bun and on Deno beside Node (docs/reference/operations.md#runtimes), the same
 * build on the same seeded file, each runtime with its own SQLite: guarded reads at 32
 * connections, taken in turns, and login p50 one request at a time, also in turns. Workers are
 * not comparable here (workerd emulates D1 in-process). The binaries are the library's
 * devDependencies; a missing one is left out with a note.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { accessTokenFor, BENCH_DIR, type Ctx, runLoad, startApp } from '../context.js'
import type { Running } from '../procs.js'
import { percentile, sortedCopy } from '../stats.js'
import {
  bearer,
  compared,
  interleaved,
  loginsOf,
  type MainData,
  medianRps,
  ms,
  type Outcome,
  oneAtATime,
  problems,
  type Row,
  readTodos,
  rps,
} from './shared.js'

const MODULES = join(BENCH_DIR, '..', 'packages', 'auth', 'node_modules')
const RUNTIMES: Record<'bun' | 'deno', string[]> = {
  bun: [join(MODULES, 'bun', 'bin', 'bun.exe')],
  deno: [join(MODULES, 'deno', 'deno'), 'run', '-A', '--node-modules-dir=manual'],
}

export const runtimes = async (ctx: Ctx, data: MainData): Promise<Outcome> => {
  const rows: Row[] = []
  const raw: Record<string, unknown> = {}
  const available = (Object.keys(RUNTIMES) as ('bun' | 'deno')[]).filter((name) => existsSync(RUNTIMES[name][0] as string))
  const servers: Record<string, Running> = { node: await startApp(ctx, 'todo-api-node', data.dbPath) }
  try {
    for (const name of available) servers[name] = await startApp(ctx, `todo-api-${name}`, data.dbPath, undefined, RUNTIMES[name])
    const readTokens = bearer(await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u))))

    ctx.progress('scenario 8: GET /todos?limit=20 on Node, Bun and Deno, 32 connections')
    const reads = await interleaved(
      ctx,
      Object.entries(servers).map(([key, server]) => ({ key, server, variant: readTodos(readTokens) })),
    )
    raw.reads = Object.fromEntries(Object.entries(reads).map(([k, v]) => [k, v.map((r) => r.rps)]))

    ctx.progress('scenario 8: login p50 on Node, Bun and Deno, one at a time')
    // Accounts no other scenario signs in with (the email limit is 10 per 15 minutes).
    const accounts = data.logins.slice(3400)
    const perRuntime = Math.floor(accounts.length / Object.keys(servers).length)
    const samples: Record<string, number[]> = {}
    const notes: string[] = []
    const n = Math.ceil(Math.min(ctx.sizes.loginSamples, perRuntime) / ctx.sizes.rounds)
    for (let r = 0; r < ctx.sizes.rounds; r++)
      for (const [i, [key, server]] of Object.entries(servers).entries()) {
        const mine = accounts.slice(i * perRuntime, (i + 1) * perRuntime).slice(r * n, (r + 1) * n)
        const [stream] = (await runLoad(ctx, server, [oneAtATime(key, loginsOf(key, mine), mine.length, 0)])).streams
        samples[key] = [...(samples[key] ?? []), ...(stream?.samples[key] ?? [])]
        if (stream) notes.push(problems(stream))
      }
    raw.loginSamples = samples
    const p50 = (key: string) => percentile(sortedCopy(samples[key] ?? []), 50)
    const note = notes.filter(Boolean).join('; ')
    for (const name of available) {
      const label = name === 'bun' ? 'Bun' : 'Deno'
      rows.push(
        compared(
          `8-${name}`,
          `Reference server on ${label} vs Node: guarded GET /todos?limit=20`,
          [medianRps(reads[name]), medianRps(reads.node)],
          rps,
          null,
        ),
        compared(
          `8-${name}-login`,
          `Reference server on ${label} vs Node: login p50`,
          [p50(name), p50('node')],
          ms,
          null,
          note || undefined,
        ),
      )
    }
    const missing = (Object.keys(RUNTIMES) as string[]).filter((name) => !available.includes(name as 'bun' | 'deno'))
    if (missing.length) ctx.progress(`scenario 8: ${missing.join(' and ')} not installed; left out`)
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()))
  }
  return { rows, raw }
}
