/**
 * `node dist/compare.js http|in-process [--write] [--rounds=N] [--seconds=S] [--requests=R] <name>=<build dir> …`
 *
 * What a change to the reference server did, measured in one run: the same guarded
 * `GET /todos?limit=20` through several builds of it. (`pnpm bench` compares against baselines,
 * not against the code before a change, and runs days apart are not comparable here.) A build
 * dir is a copy of `apps/todo-api/dist` kept beside it, so that its imports resolve; for
 * example `cp -r apps/todo-api/dist apps/todo-api/dist-before` before the change, then
 * `pnpm --filter @latchkey/todo-api build` and
 * `node bench/dist/compare.js http before=apps/todo-api/dist-before after=apps/todo-api/dist`.
 *
 * - `http`: each build as a server (built, production), with bare Hono and the guarded bare app
 *   on the same file, in interleaved rounds of closed-loop load (32 connections, `--seconds`
 *   each, default 3; `--rounds`, default 6). Prints each one's median req/s, its ratio to bare
 *   Hono's, and its median server CPU per request. `--write`: `POST /todos` instead of the read.
 *   `--lean`: also the same statements on `node:http` with no framework (baseline `lean`).
 *   `--login`: logins one at a time instead (`--requests` per round, default 80), each build and
 *   hono/jwt's login (scenario 3's peer) in turn, every login from a browser the account does
 *   not know, so each one mails a notice; prints each one's p50 over all its rounds, its ratio
 *   to hono/jwt's, and its median server CPU per login. `--known`: every build's logins come from
 *   browsers its accounts know instead (each signed in once first), so no notice is mailed (3-known).
 *   `--signup`: signups one at a time instead, as scenario 3s (each a new address; the builds'
 *   breached-password check off, as hono/jwt's signup has none).
 *   `--storm`: scenario 5 through each build in interleaved rounds: the paced reads alone, then
 *   beside 8 clients logging in (`--seconds` each, default 12); prints each one's read latency
 *   percentiles, idle and in the storm, over all its rounds, and its logins per second.
 * - `in-process`: each build's `createApp` in this process on the same file, taking turns in
 *   short rounds (`--requests` each, default 500; `--rounds`, default 40). Prints each one's
 *   10th-percentile CPU per request and its difference from the first build's. Every build's
 *   request log goes to the same /dev/null stream, so the log's own writer is not compared here.
 */
import { createWriteStream, existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { accessTokenFor, type Ctx, runLoad, scratchScript, scriptArgs, startApp, startBaseline } from './context.js'
import type { Running } from './procs.js'
import {
  bearer,
  interleaved,
  medianCpu,
  medianMainCpu,
  medianRps,
  prepareMain,
  readTodos,
  userHeader,
  writeTodo,
} from './scenarios/index.js'
import { knownBrowsers } from './scenarios/logins.js'
import { loginsOf, type MainData, ms, oneAtATime, type Run, stormStreams } from './scenarios/shared.js'
import { signupsOf } from './scenarios/signups.js'
import { median, percentile, sortedCopy } from './stats.js'

const [mode, ...rest] = process.argv.slice(2)
const parsed = scriptArgs(rest)
const option = (name: string, fallback: number) => Number(parsed.option(name, String(fallback)))
const { builds } = parsed
if ((mode !== 'http' && mode !== 'in-process') || builds.length === 0)
  throw new Error('usage: node compare.js http|in-process [--rounds=N] [--seconds=S] [--requests=R] <name>=<build dir> …')

const rounds = option('rounds', mode === 'http' ? 6 : 40)

/** The `createApp` of one build, as far as this script calls it. */
interface Build {
  createApp(options: object): { request(path: string, init?: RequestInit): Response | Promise<Response> }
}

/** Each build as a server on the data set's file, in the order given (stopped with `servers`). */
const startBuilds = async (ctx: Ctx, data: MainData, servers: Running[], env: Record<string, string> = {}) => {
  const started: { key: string; server: Running }[] = []
  for (const build of builds) {
    const server = await startApp(ctx, build.name, data.dbPath, join(build.dir, 'main.js'), undefined, env)
    servers.push(server)
    started.push({ key: build.name, server })
  }
  return started
}

/** `http --login`: sequential logins through each build and hono/jwt's, in interleaved rounds. */
const compareLogins = async (ctx: Ctx, data: MainData, servers: Running[]) => {
  const jwt = await startBaseline(ctx, 'jwt', data.dbPath)
  servers.push(jwt)
  const started = [{ key: 'hono/jwt', server: jwt }, ...(await startBuilds(ctx, data, servers))]
  // Each server signs its own accounts in, so no email reaches its limit (10 per 15 minutes).
  const share = Math.floor(data.logins.length / started.length)
  const requests = option('requests', 80)
  // `--known`: each build's logins come from browsers its accounts know (no notice mail), as scenario 3-known.
  const known = process.argv.includes('--known')
  const runs = await Promise.all(
    started.map(async (run, i) => {
      // As many accounts as the rounds sign in (a known browser is made by signing in once first).
      const accounts = data.logins.slice(i * share, i * share + Math.min(share, rounds * requests))
      const variant = loginsOf(run.key, accounts)
      if (!known || run.key === 'hono/jwt') return { ...run, variant }
      return { ...run, variant: { ...variant, ...(await knownBrowsers(run.server.base, accounts)) } }
    }),
  )
  const results = await interleaved(ctx, runs, (name, variant) => oneAtATime(name, variant, requests))
  printOneAtATime(ctx, 'login', requests, results)
}

/** The table of `--login` and `--signup`: each server's p50 over all its rounds, ÷ hono/jwt's, and its CPU. */
const printOneAtATime = (ctx: Ctx, what: string, requests: number, results: Record<string, Run[]>) => {
  const p50 = (key: string) => percentile(sortedCopy((results[key] ?? []).flatMap((run) => run.samples[key] ?? [])), 50)
  const jwtP50 = p50('hono/jwt')
  process.stdout.write(`\n${ctx.pinning.note}; ${rounds} rounds of ${requests} ${what}s each\n\n`)
  process.stdout.write(
    `| server | ${what} p50 | ÷ hono/jwt's | CPU ms per ${what} | of it, the main thread |\n|---|---|---|---|---|\n`,
  )
  for (const key of Object.keys(results))
    process.stdout.write(
      `| ${key} | ${ms(p50(key))} | ${(p50(key) / jwtP50).toFixed(2)} | ${medianCpu(results[key]).toFixed(2)} | ${medianMainCpu(results[key]).toFixed(2)} |\n`,
    )
}

/** `http --signup`: sequential signups through each build and hono/jwt's, as scenario 3s, in interleaved rounds. */
const compareSignups = async (ctx: Ctx, data: MainData, servers: Running[]) => {
  const jwt = await startBaseline(ctx, 'jwt', data.dbPath)
  servers.push(jwt)
  // As scenario 3s: hono/jwt's signup has no breached-password check, so the builds' is off.
  const started = [{ key: 'hono/jwt', server: jwt }, ...(await startBuilds(ctx, data, servers, { PWNED_PASSWORDS_URL: 'off' }))]
  const requests = option('requests', 80)
  // Each round's signups are of new addresses, the warm-up's included; samples are kept under the server's key.
  const signupsFor = (key: string, round: number) => ({ ...signupsOf(key.replace('/', '-'), round, requests + 10), label: key })
  const runs = started.map((run) => ({ ...run, variant: signupsFor(run.key, 0) }))
  const results = await interleaved(ctx, runs, (name, _, round) => oneAtATime(name, signupsFor(name, round), requests))
  printOneAtATime(ctx, 'signup', requests, results)
}

/** `http --storm`: scenario 5's reads, alone and during a login storm, through each build in turn. */
const compareStorm = async (ctx: Ctx, data: MainData, servers: Running[], tokens: Record<string, string>[]) => {
  const started = await startBuilds(ctx, data, servers)
  const seconds = option('seconds', 12)
  // Each run of a storm signs in with the next accounts, so no email nears its limit (10 per 15 minutes).
  const accounts = data.logins.slice(1000)
  const per = Math.floor(accounts.length / (rounds * started.length))
  const samples = new Map(started.map(({ key }) => [key, { idle: [] as number[], busy: [] as number[], logins: [] as number[] }]))
  let turn = 0
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < started.length; i++) {
      const run = started[(i + r) % started.length]
      const into = run && samples.get(run.key)
      if (!run || !into) continue
      const { reads, storm } = stormStreams(seconds, tokens, accounts.slice(turn * per, ++turn * per))
      const [idle] = (await runLoad(ctx, run.server, [reads])).streams
      const during = await runLoad(ctx, run.server, [reads, storm])
      const busy = during.streams.find((s) => s.name === 'reads')
      const logins = during.streams.find((s) => s.name === 'storm')
      into.idle.push(...Object.values(idle?.samples ?? {}).flat())
      into.busy.push(...Object.values(busy?.samples ?? {}).flat())
      into.logins.push(logins?.rps ?? Number.NaN)
      ctx.progress(
        `  round ${r + 1}/${rounds} ${run.key}: read p99 ${ms(idle?.latency.p99 ?? Number.NaN)} idle, ${ms(busy?.latency.p99 ?? Number.NaN)} in the storm`,
      )
    }
  const cells = (xs: number[]) => {
    const sorted = sortedCopy(xs)
    return [50, 90, 99, 99.9].map((p) => ms(percentile(sorted, p))).join(' | ')
  }
  process.stdout.write(`\n${ctx.pinning.note}; ${rounds} rounds of ${seconds} s, reads at 200/s\n\n`)
  process.stdout.write('| server | reads | p50 | p90 | p99 | p99.9 | logins/s |\n|---|---|---|---|---|---|---|\n')
  for (const [key, { idle, busy, logins }] of samples) {
    process.stdout.write(`| ${key} | idle | ${cells(idle)} | — |\n`)
    process.stdout.write(`| ${key} | storm | ${cells(busy)} | ${median(logins).toFixed(0)} |\n`)
  }
}

scratchScript('compare', { seconds: option('seconds', 3), rounds }, async (ctx, servers) => {
  const data = await prepareMain(ctx)
  const tokens = bearer(await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u))))

  if (mode === 'http' && process.argv.includes('--storm')) {
    await compareStorm(ctx, data, servers, tokens)
    return
  }

  if (mode === 'http' && process.argv.includes('--signup')) {
    await compareSignups(ctx, data, servers)
    return
  }

  if (mode === 'http' && process.argv.includes('--login')) {
    await compareLogins(ctx, data, servers)
    return
  }

  if (mode === 'http') {
    const write = process.argv.includes('--write')
    const users = write ? data.writers : data.readers
    const scenario = write ? writeTodo : readTodos
    const signedIn = write ? bearer(await Promise.all(users.map((u) => accessTokenFor(ctx, u)))) : tokens
    const bare = await startBaseline(ctx, 'bare', data.dbPath)
    const guard = await startBaseline(ctx, 'latchkey', data.dbPath)
    servers.push(bare, guard)
    const runs = [
      { key: 'bare', server: bare, variant: scenario(userHeader(users)) },
      { key: 'guard', server: guard, variant: scenario(signedIn) },
    ]
    if (process.argv.includes('--lean')) {
      const lean = await startBaseline(ctx, 'lean', data.dbPath)
      servers.push(lean)
      runs.push({ key: 'lean', server: lean, variant: scenario(userHeader(users)) })
    }
    for (const { key, server } of await startBuilds(ctx, data, servers)) runs.push({ key, server, variant: scenario(signedIn) })
    const results = await interleaved(ctx, runs)
    const bareRps = medianRps(results.bare)
    process.stdout.write(`\n${ctx.pinning.note}; ${rounds} rounds of ${ctx.sizes.seconds} s\n\n`)
    process.stdout.write('| server | req/s | ÷ bare | CPU µs per request |\n|---|---|---|---|\n')
    for (const { key } of runs)
      process.stdout.write(
        `| ${key} | ${Math.round(medianRps(results[key]))} | ${(medianRps(results[key]) / bareRps).toFixed(2)} | ${(medianCpu(results[key]) * 1000).toFixed(0)} |\n`,
      )
    return
  }

  const devNull = createWriteStream('/dev/null')
  const apps = []
  for (const build of builds) {
    const url = (file: string) => pathToFileURL(join(build.dir, file)).href
    const { createApp } = (await import(url('app.js'))) as Build
    // Builds from before the app's src/db/ folder keep the database module at dist/db.js.
    const dbModule = existsSync(join(build.dir, 'db', 'index.js')) ? 'db/index.js' : 'db.js'
    const { openDatabase } = (await import(url(dbModule))) as { openDatabase(target: object): Promise<unknown> }
    const { createMailer } = (await import(url('mail.js'))) as { createMailer(options: object): unknown }
    const publicUrl = 'http://localhost'
    apps.push({
      name: build.name,
      app: createApp({
        secret: ctx.secret,
        db: await openDatabase({ kind: 'sqlite', path: data.dbPath }),
        mailer: createMailer({ smtpUrl: ctx.smtpUrl, from: 'compare@localhost', publicUrl, production: true }),
        publicUrl,
        production: true,
        trustProxy: true,
        version: '0.0.0',
        logRequest: (line: string) => devNull.write(`${line}\n`),
      }),
    })
  }
  const requests = option('requests', 500)
  const round = async (app: ReturnType<Build['createApp']>) => {
    const cpu = process.cpuUsage()
    for (let i = 0; i < requests; i++) {
      const headers = tokens[i % tokens.length]
      const res = await app.request('/todos?limit=20', headers ? { headers } : {})
      if (res.status !== 200) throw new Error(`GET /todos answered ${res.status}`)
      await res.arrayBuffer()
    }
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / requests
  }
  for (const { app } of apps) await round(app) // warm-up
  const samples = new Map<string, number[]>(apps.map((a) => [a.name, []]))
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < apps.length; i++) {
      const entry = apps[(i + r) % apps.length]
      if (entry) samples.get(entry.name)?.push(await round(entry.app))
    }
  const low = (name: string) => percentile(sortedCopy(samples.get(name) ?? []), 10)
  const first = low(apps[0]?.name ?? '')
  process.stdout.write(`\n${rounds} rounds of ${requests} requests, 10th percentile\n\n`)
  process.stdout.write('| build | CPU µs per request | vs first |\n|---|---|---|\n')
  for (const { name } of apps)
    process.stdout.write(
      `| ${name} | ${low(name).toFixed(1)} | ${(low(name) - first >= 0 ? '+' : '') + (low(name) - first).toFixed(1)} |\n`,
    )
  devNull.end()
})
