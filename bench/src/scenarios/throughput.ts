/** Scenarios 1 and 2: guarded reads and writes, over HTTP and in-process. */
import { join } from 'node:path'
import { accessTokenFor, type Ctx, DIST, startApp, startBaseline } from '../context.js'
import { runJson } from '../procs.js'
import {
  bearer,
  compared,
  interleaved,
  type MainData,
  medianCpu,
  medianRps,
  type Outcome,
  problems,
  type Row,
  readTodos,
  rps,
  strip,
  us,
  userHeader,
  writeTodo,
} from './shared.js'

/**
 * What `guard-cost.js` prints: µs per request of each app; each auth layer over the no-auth app,
 * and query validation over the same guarded route declared without it.
 */
type GuardCostApp = 'none' | 'latchkey' | 'honoJwt' | 'declared' | 'validated'
interface GuardCost {
  wall: Record<GuardCostApp, number>
  cpu: Record<GuardCostApp, number>
  layer: Record<'latchkey' | 'honoJwt' | 'validation', { wall: number; cpu: number }>
}

/** Scenarios 1 and 2: guarded reads and writes against bare Hono and hono/jwt, 32 connections. */
export const throughput = async (ctx: Ctx, data: MainData): Promise<Outcome> => {
  const app = await startApp(ctx, 'todo-api', data.dbPath)
  const bare = await startBaseline(ctx, 'bare', data.dbPath)
  const jwt = await startBaseline(ctx, 'jwt', data.dbPath)
  // The same bare app behind the library's guard: only the auth layer differs from `bare`.
  const guard = await startBaseline(ctx, 'latchkey', data.dbPath)
  try {
    const readTokens = bearer(await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u))))
    const writeTokens = bearer(await Promise.all(data.writers.map((u) => accessTokenFor(ctx, u))))
    ctx.progress('scenario 1: GET /todos?limit=20, 32 connections')
    const reads = await interleaved(ctx, [
      { key: 'app', server: app, variant: readTodos(readTokens) },
      { key: 'bare', server: bare, variant: readTodos(userHeader(data.readers)) },
      { key: 'jwt', server: jwt, variant: readTodos(readTokens) },
      { key: 'guard', server: guard, variant: readTodos(readTokens) },
    ])
    ctx.progress('scenario 2: POST /todos, 32 connections')
    const writes = await interleaved(ctx, [
      { key: 'app', server: app, variant: writeTodo(writeTokens) },
      { key: 'bare', server: bare, variant: writeTodo(userHeader(data.writers)) },
      { key: 'guard', server: guard, variant: writeTodo(writeTokens) },
    ])

    // The auth layer alone, in-process: what the guard adds to a trivial route, against hono/jwt.
    ctx.progress('scenarios 1c and 1d: the auth layer and query validation alone, in-process')
    const layer = await runJson<GuardCost>({
      script: join(DIST, 'guard-cost.js'),
      args: ctx.quick ? ['500', '12'] : ['1000', '40'],
      cores: ctx.pinning.server,
      timeoutMs: 120_000,
    })

    const bareReadUs = medianCpu(reads.bare) * 1000
    const r = { app: medianRps(reads.app), guard: medianRps(reads.guard), bare: medianRps(reads.bare), jwt: medianRps(reads.jwt) }
    const w = { app: medianRps(writes.app), guard: medianRps(writes.guard), bare: medianRps(writes.bare) }
    const notes = [...Object.values(reads), ...Object.values(writes)]
      .flat()
      .map((x) => problems(x))
      .filter(Boolean)
    const rows: Row[] = [
      compared(
        '1a',
        'Reference server: guarded GET /todos?limit=20 vs bare Hono',
        [r.app, r.bare],
        rps,
        { atLeast: 0.9 },
        notes.join('; '),
      ),
      compared('1b', 'Reference server: guarded GET /todos?limit=20 vs hono/jwt', [r.app, r.jwt], rps, { atLeast: 1.3 }),
      compared("1a'", 'Bare Hono behind the Latchkey guard: GET /todos?limit=20 vs bare Hono', [r.guard, r.bare], rps, {
        atLeast: 0.9,
      }),
      compared("1b'", 'Bare Hono behind the Latchkey guard: GET /todos?limit=20 vs hono/jwt', [r.guard, r.jwt], rps, {
        atLeast: 1.3,
      }),
      compared(
        '1c',
        'Auth layer alone, in-process, CPU µs per request it adds to a trivial route: Latchkey guard vs hono/jwt',
        [layer.layer.latchkey.cpu, layer.layer.honoJwt.cpu],
        us,
        null,
        `no auth: ${layer.cpu.none.toFixed(1)} µs per request; the guard verifies the token (cached after its first verification) and reads the live session and user from SQLite; hono/jwt verifies the signature every time and reads nothing`,
      ),
      compared(
        '1d',
        'Query validation alone, in-process, CPU µs per request it adds to a guarded route: zod-openapi `?limit=20` vs the guard (1c)',
        [layer.layer.validation.cpu, layer.layer.latchkey.cpu],
        us,
        null,
        // What 1a's target leaves for everything the reference server adds to bare Hono, measured.
        `1a's ≥ 0.90 leaves ${us((1 / 0.9 - 1) * bareReadUs)} of server CPU per read over bare Hono's ${us(bareReadUs)}; ` +
          `the guard (1c) and validating the query (1d) alone take ${us(layer.layer.latchkey.cpu + layer.layer.validation.cpu)} ` +
          "(a lower bound: 1d's app has one route and a one-field schema)",
      ),
      compared('2', 'Reference server: POST /todos vs bare Hono', [w.app, w.bare], rps, { atLeast: 0.85 }),
      compared("2'", 'Bare Hono behind the Latchkey guard: POST /todos vs bare Hono', [w.guard, w.bare], rps, { atLeast: 0.85 }),
    ]
    const cpu = {
      reads: { app: medianCpu(reads.app), guard: medianCpu(reads.guard), bare: medianCpu(reads.bare), jwt: medianCpu(reads.jwt) },
      writes: { app: medianCpu(writes.app), guard: medianCpu(writes.guard), bare: medianCpu(writes.bare) },
    }
    return { rows, raw: { cpuMsPerRequest: cpu, reads: strip(reads), writes: strip(writes), authLayer: layer } }
  } finally {
    await Promise.all([app.stop(), bare.stop(), jwt.stop(), guard.stop()])
  }
}
