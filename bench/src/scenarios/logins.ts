/** Scenarios 3, 4 and 5: what a login costs, its timing, and reads during a login storm. */
import { join } from 'node:path'
import { accessTokenFor, type Ctx, DIST, runLoad, startApp, startBaseline } from '../context.js'
import type { Variant } from '../job.js'
import { runJson } from '../procs.js'
import { PASSWORD } from '../seed.js'
import { median, percentile, sortedCopy, summarize, trim } from '../stats.js'
import {
  bearer,
  compared,
  loginBody,
  loginsOf,
  type MainData,
  ms,
  type Outcome,
  oneAtATime,
  problems,
  type Row,
  stormStreams,
} from './shared.js'

/** Scenarios 3, 4 and 5: login cost, login timing, and reads during a login storm. */
export const logins = async (ctx: Ctx, data: MainData, only: (id: string) => boolean): Promise<Outcome> => {
  const app = await startApp(ctx, 'todo-api-login', data.dbPath)
  const rows: Row[] = []
  const raw: Record<string, unknown> = {}
  // The email limit is 10 per 15 minutes: each scenario gets its own accounts, each used a few times at most.
  const pool = {
    login: data.logins.slice(0, 400),
    wrong: data.logins.slice(400, 1000),
    storm: data.logins.slice(1000, 3800),
    known: data.logins.slice(3800),
  }
  try {
    const loginVariant = loginsOf('login', pool.login)
    // 3. Login p50 against raw argon2 verify p50, one request at a time. The machine drifts
    // (argon2 alone moves 20–30% between minutes here), so the three series are taken in turns,
    // `rounds` times, and each p50 is over all its rounds' samples.
    if (only('3')) {
      ctx.progress('scenario 3: login p50 vs raw argon2 verify p50 (and bare Hono + argon2, the HTTP floor)')
      const rounds = ctx.sizes.rounds
      const n = Math.ceil(ctx.sizes.loginSamples / rounds)
      // The same requests to bare Hono doing nothing but the argon2 verify: the floor any login
      // over HTTP pays on this machine (request, thread-pool round trip, answer).
      const floorServer = await startBaseline(ctx, 'bare', data.dbPath)
      // The same logins against hono/jwt's shape of one (servers/baseline.ts): the same verify, a token, nothing else.
      const jwtServer = await startBaseline(ctx, 'jwt', data.dbPath)
      // 3-known: the same logins from browsers the accounts already know (each signed in once
      // first, keeping its device cookie), so no new-sign-in notice is mailed: a returning user.
      const knownVariant: Variant = { ...loginVariant, label: 'known', ...(await knownBrowsers(app.base, pool.known)) }
      const series = {
        login: [] as number[],
        known: [] as number[],
        jwt: [] as number[],
        floor: [] as number[],
        argon: [] as number[],
      }
      const statuses: Record<string, number> = {}
      const notes: string[] = []
      try {
        for (let r = 0; r < rounds; r++) {
          const [login] = (await runLoad(ctx, app, [oneAtATime('login', loginVariant, n)])).streams
          const [known] = (await runLoad(ctx, app, [oneAtATime('known', knownVariant, n)])).streams
          const [jwtLogin] = (await runLoad(ctx, jwtServer, [oneAtATime('jwt', { ...loginVariant, label: 'jwt' }, n)])).streams
          const [floor] = (
            await runLoad(ctx, floorServer, [oneAtATime('floor', { ...loginVariant, label: 'floor', path: '/verify' }, n)])
          ).streams
          const argon = await runJson<{ samples: number[] }>({
            script: join(DIST, 'argon2-verify.js'),
            args: ['5', String(n)],
            cores: ctx.pinning.server,
            timeoutMs: 120_000,
            env: { ARGON2_HASH: ctx.hash },
          })
          series.login.push(...(login?.samples.login ?? []))
          series.known.push(...(known?.samples.known ?? []))
          series.jwt.push(...(jwtLogin?.samples.jwt ?? []))
          series.floor.push(...(floor?.samples.floor ?? []))
          series.argon.push(...argon.samples)
          for (const [code, k] of Object.entries(login?.statuses ?? {})) statuses[code] = (statuses[code] ?? 0) + k
          notes.push(...[login, known, jwtLogin, floor].map((x) => (x ? problems(x) : 'no result')).filter(Boolean))
        }
      } finally {
        await Promise.all([floorServer.stop(), jwtServer.stop()])
      }
      const [loginP50, knownP50, jwtP50, floorP50, argonP50] = [
        series.login,
        series.known,
        series.jwt,
        series.floor,
        series.argon,
      ].map((x) => percentile(sortedCopy(x), 50)) as [number, number, number, number, number]
      rows.push(
        compared('3', 'Login p50 vs raw argon2id verify p50', [loginP50, argonP50], ms, { atMost: 1.15 }, notes.join('; ')),
        compared(
          '3-jwt',
          "Login p50 vs hono/jwt's login p50 (the same argon2id verify; a token, no session, cookie, limiter or events)",
          [loginP50, jwtP50],
          ms,
          { atMost: 1.05 },
        ),
        compared(
          '3-known',
          "Login p50 from a browser the account knows (no notice mail) vs hono/jwt's login p50",
          [knownP50, jwtP50],
          ms,
          null,
        ),
        compared(
          '3b',
          'Floor for 3: bare Hono doing only the argon2id verify, over HTTP, p50 vs raw verify p50',
          [floorP50, argonP50],
          ms,
          null,
        ),
        compared('3c', 'Login p50 vs the floor of 3b: what the login adds over HTTP + argon2id', [loginP50, floorP50], ms, null),
      )
      raw.login = {
        loginP50,
        knownP50,
        jwtP50,
        floorP50,
        argonP50,
        samples: series.login.length,
        statuses,
        login: summarize(series.login),
        known: summarize(series.known),
        jwt: summarize(series.jwt),
        floor: summarize(series.floor),
        argon: summarize(series.argon),
      }
    }

    // 4. Unknown email vs wrong password, interleaved on one connection (A B A B …) after a warm-up.
    if (only('4')) {
      ctx.progress('scenario 4: unknown email vs wrong password, interleaved')
      const pairs = ctx.sizes.pairSamples
      const tag = Date.now().toString(36)
      const [pair] = (
        await runLoad(ctx, app, [
          {
            name: 'pair',
            connections: 1,
            variants: [
              {
                label: 'unknown',
                method: 'POST',
                path: '/auth/login',
                headers: [{}],
                bodies: Array.from({ length: pairs + 40 }, (_, i) => loginBody(`nobody-${tag}-${i}@bench.test`, PASSWORD)),
                uniqueForwardedFor: true,
              },
              {
                label: 'wrong',
                method: 'POST',
                path: '/auth/login',
                headers: [{}],
                bodies: pool.wrong.map((u) => loginBody(u.email, `${PASSWORD} but wrong`)),
                uniqueForwardedFor: true,
              },
            ],
            seconds: 90,
            maxRequests: pairs,
            warmupSeconds: 5,
            warmupMaxRequests: 20,
          },
        ])
      ).streams
      const unknown = trim(pair?.samples.unknown ?? [], 0.1)
      const wrong = trim(pair?.samples.wrong ?? [], 0.1)
      const [mu, mw] = [median(unknown), median(wrong)]
      const pairNote = pair ? problems(pair, /^401$/) : 'no result'
      rows.push(
        compared('4', 'Login: unknown email vs wrong password (medians, 10% trimmed)', [mu, mw], ms, { within: 0.05 }, pairNote),
      )
      raw.timing = { unknownMedian: mu, wrongMedian: mw, n: [unknown.length, wrong.length], statuses: pair?.statuses }
    }

    // 5. Read p99 while 8 clients log in continuously, against the same reads alone.
    if (only('5')) {
      ctx.progress('scenario 5: reads during a login storm')
      const readTokens = bearer(await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u))))
      const { reads, storm } = stormStreams(ctx.sizes.stormSeconds, readTokens, pool.storm)
      const [idle] = (await runLoad(ctx, app, [reads])).streams
      const during = await runLoad(ctx, app, [reads, storm])
      const busy = during.streams.find((s) => s.name === 'reads')
      const stormResult = during.streams.find((s) => s.name === 'storm')
      // The same reads and storm against hono/jwt's shape (its login verifies on the thread pool, unbounded).
      const jwtServer = await startBaseline(ctx, 'jwt', data.dbPath)
      const jwtDuring = await runLoad(ctx, jwtServer, [reads, storm]).finally(() => jwtServer.stop())
      const jwtBusy = jwtDuring.streams.find((s) => s.name === 'reads')
      const jwtStorm = jwtDuring.streams.find((s) => s.name === 'storm')
      const idleP99 = idle?.latency.p99 ?? Number.NaN
      const busyP99 = busy?.latency.p99 ?? Number.NaN
      const stormNote = [idle, busy, stormResult].map((r) => (r ? problems(r) : 'no result')).filter(Boolean)
      rows.push(
        compared(
          '5',
          `Read p99 (200 req/s) during a login storm (8 clients, ${Math.round(stormResult?.rps ?? 0)} logins/s) vs idle`,
          [busyP99, idleP99],
          ms,
          { atMost: 3 },
          stormNote.join('; '),
        ),
        compared(
          '5-jwt',
          `Read p99 during the storm vs hono/jwt's read p99 during its own storm (${Math.round(jwtStorm?.rps ?? 0)} logins/s)`,
          [busyP99, jwtBusy?.latency.p99 ?? Number.NaN],
          ms,
          { atMost: 0.1 },
          [jwtBusy, jwtStorm]
            .map((r) => (r ? problems(r) : 'no result'))
            .filter(Boolean)
            .join('; '),
        ),
      )
      raw.storm = {
        // Every read's latency in the order sent, so the distributions can be drawn (docs/PERFORMANCE.md).
        samples: { idle: idle?.samples, busy: busy?.samples, jwtBusy: jwtBusy?.samples },
        idle: idle?.latency,
        busy: busy?.latency,
        logins: stormResult?.latency,
        loginRps: stormResult?.rps,
        jwt: { busy: jwtBusy?.latency, logins: jwtStorm?.latency, loginRps: jwtStorm?.rps },
      }
    }
    return { rows, raw }
  } finally {
    await app.stop()
  }
}

/**
 * Signs each of `users` in once, from its own address, and keeps the device cookie the answer
 * sets: the header sets and bodies of logins from browsers the accounts know, in step.
 */
export const knownBrowsers = async (base: string, users: MainData['logins']): Promise<Pick<Variant, 'headers' | 'bodies'>> => {
  const headers: Record<string, string>[] = []
  for (const [i, user] of users.entries()) {
    const res = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${(i % 250) + 1}` },
      body: loginBody(user.email, PASSWORD),
    })
    await res.arrayBuffer()
    const device = res.headers
      .getSetCookie()
      .map((cookie) => /^((?:__Host-|__Secure-)?device=[^;]+)/.exec(cookie)?.[1])
      .find(Boolean)
    if (res.status !== 200 || !device) throw new Error(`the login that makes a known browser answered ${res.status}`)
    headers.push({ cookie: device })
  }
  // Their notice mails go out after the answers: let them leave before anything is timed.
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  return { headers, bodies: users.map((u) => loginBody(u.email, PASSWORD)) }
}
