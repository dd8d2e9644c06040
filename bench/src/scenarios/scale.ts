/** Scenario 6: reads on a million todos. */
import { join } from 'node:path'
import { accessTokenFor, type Ctx, migrateWithApp, startApp } from '../context.js'
import type { Variant } from '../job.js'
import { rssKiB } from '../procs.js'
import { type SeededUser, seed } from '../seed.js'
import { median } from '../stats.js'
import { bearer, compared, interleaved, medianCpu, medianRps, ms, type Outcome, problems, type Run, readTodos } from './shared.js'

/** Scenario 6: GET /todos p50 on 1,000,000 todos across 10,000 users, and on 200,000 across 2,000, against 1,000 todos across 10. */
export const scale = async (ctx: Ctx): Promise<Outcome> => {
  ctx.progress('scenario 6: seeding 1,000, 200,000 and 1,000,000 todos')
  const small = join(ctx.dir, 'small.db')
  const mid = join(ctx.dir, 'mid.db')
  const large = join(ctx.dir, 'large.db')
  await migrateWithApp(ctx, small)
  await migrateWithApp(ctx, mid)
  await migrateWithApp(ctx, large)
  const started = performance.now()
  const smallUsers = seed(small, { prefix: 'small', users: 10, todosPerUser: 100, hash: ctx.hash })
  const midUsers = seed(mid, { prefix: 'mid', users: 2_000, todosPerUser: 100, hash: ctx.hash })
  const largeUsers = seed(large, { prefix: 'large', users: 10_000, todosPerUser: 100, hash: ctx.hash })
  const seedSeconds = (performance.now() - started) / 1000
  ctx.progress(`  seeded in ${seedSeconds.toFixed(1)} s`)
  const smallApp = await startApp(ctx, 'todo-api-small', small)
  const midApp = await startApp(ctx, 'todo-api-mid', mid)
  const largeApp = await startApp(ctx, 'todo-api-large', large)
  try {
    const variant = async (users: SeededUser[]): Promise<Variant> =>
      readTodos(bearer(await Promise.all(users.map((u) => accessTokenFor(ctx, u)))))
    const runs = await interleaved(ctx, [
      { key: 'small', server: smallApp, variant: await variant(smallUsers) },
      { key: 'mid', server: midApp, variant: await variant(midUsers) },
      { key: 'large', server: largeApp, variant: await variant(largeUsers) },
    ])
    const p50 = (results: Run[] | undefined) => median((results ?? []).map((r) => r.latency.p50))
    const [ps, pm, pl] = [p50(runs.small), p50(runs.mid), p50(runs.large)]
    const notes = [...(runs.small ?? []), ...(runs.mid ?? []), ...(runs.large ?? [])].map((r) => problems(r)).filter(Boolean)
    return {
      rows: [
        compared(
          '6',
          'GET /todos p50: 1,000,000 todos / 10,000 users vs 1,000 todos (32 connections)',
          [pl, ps],
          ms,
          { atMost: 1.5 },
          notes.join('; '),
        ),
        compared('6b', 'GET /todos p50: 200,000 todos / 2,000 users vs 1,000 todos (32 connections)', [pm, ps], ms, {
          atMost: 1.1,
        }),
      ],
      raw: {
        seedSeconds,
        small: { p50: ps, rps: medianRps(runs.small), cpuMsPerRequest: medianCpu(runs.small) },
        mid: { p50: pm, rps: medianRps(runs.mid), cpuMsPerRequest: medianCpu(runs.mid) },
        large: { p50: pl, rps: medianRps(runs.large), cpuMsPerRequest: medianCpu(runs.large), rssKiB: rssKiB(largeApp.pid) },
      },
    }
  } finally {
    await Promise.all([smallApp.stop(), midApp.stop(), largeApp.stop()])
  }
}
