/**
 * Scenario 3s, beside scenario 3: a signup one at a time on the reference server against the same
 * signup as an app on hono/jwt writes it (servers/baseline.ts: the same argon2id hash, a row, a
 * token). The reference server also starts a session, remembers the device, writes a verification
 * token and mails it (after the answer). Its breached-password check is off here (hono/jwt's has
 * none; with it on, the check runs beside the hash: docs/guide/account-protection.md).
 */
import { type Ctx, runLoad, startApp, startBaseline } from '../context.js'
import type { Variant } from '../job.js'
import { PASSWORD } from '../seed.js'
import { percentile, sortedCopy, summarize } from '../stats.js'
import { compared, type MainData, ms, type Outcome, oneAtATime, problems } from './shared.js'

/** `count` signups of new addresses, each from its own client address (so only the per-email limit could apply, and never does). */
export const signupsOf = (label: string, round: number, count: number): Variant => {
  const tag = `${label}-${round}-${Date.now().toString(36)}`
  return {
    label,
    method: 'POST',
    path: '/auth/signup',
    headers: [{}],
    bodies: Array.from({ length: count }, (_, i) =>
      JSON.stringify({ name: 'Bench', email: `signup-${tag}-${i}@example.com`, password: PASSWORD }),
    ),
    uniqueForwardedFor: true,
  }
}

export const signups = async (ctx: Ctx, data: MainData): Promise<Outcome> => {
  const app = await startApp(ctx, 'todo-api-signup', data.dbPath, undefined, undefined, { PWNED_PASSWORDS_URL: 'off' })
  const jwt = await startBaseline(ctx, 'jwt', data.dbPath)
  try {
    ctx.progress("scenario 3s: signup p50 vs hono/jwt's signup p50, one at a time")
    const n = Math.ceil(ctx.sizes.loginSamples / ctx.sizes.rounds)
    const series = { app: [] as number[], jwt: [] as number[] }
    const notes: string[] = []
    // In turns, as scenario 3: the machine drifts between minutes, so each round starts with the
    // other server. Every body is a new address (the warm-up's 5 included), so no signup meets a taken one.
    const server = { app, jwt }
    // Both processes are new: 100 signups each first, unrecorded, so the rows compare warm code
    // (in 3 rounds of 50 the first rounds ran partly unoptimised, ours more than hono/jwt's few lines).
    for (const key of ['app', 'jwt'] as const)
      await runLoad(ctx, server[key], [oneAtATime(key, signupsOf(`${key}-warm`, 0, 110), 100)])
    for (let r = 0; r < ctx.sizes.rounds; r++)
      for (const key of r % 2 === 0 ? (['app', 'jwt'] as const) : (['jwt', 'app'] as const)) {
        const [run] = (await runLoad(ctx, server[key], [oneAtATime(key, signupsOf(key, r, n + 10), n)])).streams
        series[key].push(...(run?.samples[key] ?? []))
        notes.push(run ? problems(run) : 'no result')
      }
    const [appP50, jwtP50] = [series.app, series.jwt].map((x) => percentile(sortedCopy(x), 50)) as [number, number]
    return {
      rows: [
        compared(
          '3s',
          "Signup p50 vs hono/jwt's signup p50 (the same argon2id hash; a row and a token, no session, device, mail or events)",
          [appP50, jwtP50],
          ms,
          { atMost: 1.3 },
          notes.filter(Boolean).join('; '),
        ),
      ],
      raw: { appP50, jwtP50, app: summarize(series.app), jwt: summarize(series.jwt) },
    }
  } finally {
    await Promise.all([app.stop(), jwt.stop()])
  }
}
