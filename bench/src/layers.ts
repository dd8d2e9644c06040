/**
 * `node dist/layers.js [--seconds=S] [--rounds=N] [--only=read,write,login] [--detail=N] <name>=<build dir> …`
 *
 * The per-layer cost table of docs/PERFORMANCE.md: each build of the reference server (a copy
 * of `apps/todo-api/dist` beside it, as for compare.js), and bare Hono and the guarded bare app
 * for reads and writes, served under `--cpu-prof` while the load generator drives one scenario
 * (guarded `GET /todos?limit=20` and `POST /todos` at 32 connections, logins at 4). Each
 * profile's samples are charged to layers (layer-rules.ts) and divided by the requests the
 * server answered, as shares of the server's CPU time (from /proc; the profile's own clock is
 * wall time, which a loaded machine stretches): CPU µs per request under the profiler, which
 * slows everything by about the same factor, so compare layers and builds within one table.
 * `--detail=N` lists each server's N most sampled frames with their layers. Runs of
 * several builds take turns, `--rounds` times (default 1); the table keeps each layer's median.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { accessTokenFor, appEnv, DIST, runLoad, scratchScript, scriptArgs } from './context.js'
import type { Stream, Variant } from './job.js'
import { type CpuProfile, chargeLayers, LOGIN_RULES, REQUEST_RULES } from './layer-rules.js'
import { type Running, startServer } from './procs.js'
import { bearer, prepareMain, readTodos, userHeader } from './scenarios/index.js'
import { loginBody, writeTodo } from './scenarios/shared.js'
import { PASSWORD } from './seed.js'
import { median } from './stats.js'

const { option, builds } = scriptArgs(process.argv.slice(2))
const seconds = Number(option('seconds', '8'))
const rounds = Number(option('rounds', '1'))
const detail = Number(option('detail', '0'))
const only = new Set(option('only', 'read,write,login').split(','))
if (builds.length === 0) throw new Error('usage: node layers.js [--seconds=S] [--rounds=N] [--only=…] <name>=<build dir> …')

/** Not part of any request: the process waiting, and loading its modules before the load. */
const IGNORED = new Set(['idle', 'startup'])

type Scenario = 'read' | 'write' | 'login'

scratchScript('layers', { seconds }, async (ctx, servers) => {
  const { dir } = ctx
  // µs per request, by scenario, server and layer: one number per round.
  const results = new Map<string, Map<string, number[]>>()
  const frameTop = new Map<string, Map<string, number>>()
  {
    const data = await prepareMain(ctx)
    const readTokens = bearer(await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u))))
    const writeTokens = bearer(await Promise.all(data.writers.map((u) => accessTokenFor(ctx, u))))
    let nextLogin = 0
    const logins = (): Variant => {
      const mine = data.logins.slice(nextLogin, nextLogin + 400)
      nextLogin += 400
      return {
        label: 'login',
        method: 'POST',
        path: '/auth/login',
        headers: [{}],
        bodies: mine.map((u) => loginBody(u.email, PASSWORD)),
        uniqueForwardedFor: true,
      }
    }
    const stream = (variant: Variant, connections: number): Stream => ({
      name: variant.label,
      connections,
      variants: [variant],
      seconds,
      maxRequests: variant.label === 'login' ? 390 : seconds * 100_000,
      warmupSeconds: 1,
    })

    type Server = { name: string; start(profileDir: string): Promise<Running> }
    const reference = builds.map(
      ({ name, dir: buildDir }): Server => ({
        name,
        start: (profileDir) =>
          startServer({
            name: `${name}-${Date.now()}`,
            script: join(buildDir, 'main.js'),
            nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
            cores: ctx.pinning.server,
            dir,
            env: appEnv(ctx, data.dbPath),
          }),
      }),
    )
    const baseline = (mode: 'bare' | 'latchkey'): Server => ({
      name: mode === 'bare' ? 'bare Hono' : 'guard on bare',
      start: (profileDir) =>
        startServer({
          name: `baseline-${mode}-${Date.now()}`,
          script: join(DIST, 'servers', 'baseline.js'),
          args: [mode],
          nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
          cores: ctx.pinning.server,
          dir,
          env: { AUTH_SECRET: ctx.secret, PORT: '0', DATABASE_PATH: data.dbPath, NODE_ENV: 'production' },
        }),
    })
    const plan: { scenario: Scenario; server: Server; variant: () => Variant; connections: number }[] = []
    for (const scenario of ['read', 'write', 'login'] as const) {
      if (!only.has(scenario)) continue
      for (const server of scenario === 'login' ? reference : [...reference, baseline('bare'), baseline('latchkey')]) {
        const bare = server.name === 'bare Hono'
        const variant =
          scenario === 'read'
            ? () => readTodos(bare ? userHeader(data.readers) : readTokens)
            : scenario === 'write'
              ? () => writeTodo(bare ? userHeader(data.writers) : writeTokens)
              : logins
        plan.push({ scenario, server, variant, connections: scenario === 'login' ? 4 : 32 })
      }
    }
    for (let r = 0; r < rounds; r++)
      for (let i = 0; i < plan.length; i++) {
        const step = plan[(i + r) % plan.length]
        if (!step) continue
        const profileDir = join(dir, `profile-${r}-${i}`)
        mkdirSync(profileDir)
        const running = await step.server.start(profileDir)
        servers.push(running)
        const job = await runLoad(ctx, running, [stream(step.variant(), step.connections)])
        await running.stop()
        const [answered] = job.streams
        const requests = (answered?.requests ?? 0) + (answered?.warmupRequests ?? 0)
        const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'))
        if (!file || requests === 0) throw new Error(`${step.server.name} ${step.scenario}: no profile or no answers`)
        const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile
        const { layers, frames } = chargeLayers(profile, step.scenario === 'login' ? LOGIN_RULES : REQUEST_RULES)
        // The profile's shares of the server's CPU time (from /proc): its sampled time is wall
        // time, which a loaded machine stretches.
        const busy = [...layers].reduce((sum, [layer, us]) => (IGNORED.has(layer) ? sum : sum + us), 0)
        const scale = (job.serverCpuMsPerRequest * 1000 * requests) / busy / requests
        const key = `${step.scenario}|${step.server.name}`
        const byLayer = results.get(key) ?? new Map<string, number[]>()
        for (const [layer, us] of layers) if (!IGNORED.has(layer)) byLayer.set(layer, [...(byLayer.get(layer) ?? []), us * scale])
        results.set(key, byLayer)
        const top = frameTop.get(key) ?? new Map<string, number>()
        for (const [layer, mine] of frames)
          for (const [frame, us] of mine) top.set(`${layer}: ${frame}`, (top.get(`${layer}: ${frame}`) ?? 0) + us * scale)
        frameTop.set(key, top)
        const statuses = Object.entries(answered?.statuses ?? {})
          .map(([code, n]) => `${n}×${code}`)
          .join(' ')
        ctx.progress(
          `round ${r + 1} ${step.scenario} ${step.server.name}: ${requests} answers (${statuses}), ${Math.round(answered?.rps ?? 0)} req/s under the profiler`,
        )
      }

    // One table per scenario: a row per layer, a column per server.
    for (const scenario of ['read', 'write', 'login'] as const) {
      const keys = [...results.keys()].filter((k) => k.startsWith(`${scenario}|`))
      if (keys.length === 0) continue
      const names = keys.map((k) => k.slice(scenario.length + 1))
      const layerNames = [...new Set(keys.flatMap((k) => [...(results.get(k)?.keys() ?? [])]))]
      const value = (k: string, layer: string) => median(results.get(k)?.get(layer) ?? [0])
      const busy = (k: string) => [...(results.get(k)?.keys() ?? [])].reduce((sum, l) => sum + value(k, l), 0)
      layerNames.sort((a, b) => value(keys[0] as string, b) - value(keys[0] as string, a))
      process.stdout.write(
        `\n${scenario}: CPU µs per request under the profiler (median of ${rounds} round(s) of ${seconds} s)\n\n`,
      )
      process.stdout.write(`| layer | ${names.join(' | ')} |\n|---|${names.map(() => '---').join('|')}|\n`)
      for (const layer of layerNames)
        process.stdout.write(`| ${layer} | ${keys.map((k) => value(k, layer).toFixed(1)).join(' | ')} |\n`)
      process.stdout.write(`| **all** | ${keys.map((k) => busy(k).toFixed(1)).join(' | ')} |\n`)
      if (detail)
        for (const k of keys) {
          const top = [...(frameTop.get(k) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, detail)
          process.stdout.write(`\n${k}, the frames sampled most:\n`)
          for (const [frame, us] of top) process.stdout.write(`  ${(us / rounds).toFixed(1).padStart(6)}  ${frame}\n`)
        }
    }
  }
})
