/**
 * The library on the runtimes themselves (docs/reference/operations.md#runtimes), started from here so `pnpm test` runs
 * them: on Bun and on Deno, the store conformance suite on the runtime's SQLite (`bun:sqlite`,
 * `node:sqlite`) and on PostgreSQL through `pg` (Bun: `bun test`; Deno: vitest run by `deno`),
 * and each runtime's example driven over HTTP by the end-to-end flow. The binaries come from npm
 * (devDependencies); without them these skip and say why. The Node and Deno examples load the
 * built package (`pnpm test` builds first), as a user's app would.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { exportJWK, generateKeyPair } from 'jose'
import { Miniflare } from 'miniflare'
import { afterAll, describe, expect, it } from 'vitest'
import { runtimeFlow } from './runtime-flow.js'
import { pgUnreachable } from './stores.js'

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const EXAMPLES = join(PACKAGE, '..', '..', 'examples')
// The binaries themselves, not node_modules/.bin's shell wrappers: a signal must reach the runtime.
const BUN = join(PACKAGE, 'node_modules', 'bun', 'bin', 'bun.exe')
const DENO = join(PACKAGE, 'node_modules', 'deno', 'deno')
const SECRET = 'an-example-secret-that-is-long-enough-0123456789'

const missing = (binary: string) => (existsSync(binary) ? null : `${binary} not found (pnpm install puts it there)`)
const bunMissing = missing(BUN)
if (bunMissing) console.warn(`Bun tests skipped: ${bunMissing}`)
const denoMissing = missing(DENO)
if (denoMissing) console.warn(`Deno tests skipped: ${denoMissing}`)
const unbuilt = existsSync(join(PACKAGE, 'dist', 'node-sqlite', 'index.js'))
  ? null
  : 'packages/auth/dist is not built (pnpm test builds it first; or pnpm --filter @latchkey/auth build)'
if (unbuilt) console.warn(`the Node and Deno examples skipped: ${unbuilt}`)
// The conformance runs on Bun and Deno: the runtime's SQLite, and PostgreSQL whenever Node reaches
// it too (a suite has 50-odd tests), so a PostgreSQL run that skips on one runtime alone fails here.
const minimumPassed = pgUnreachable === null ? 100 : 50
/**
 * The whole conformance suite on another runtime: over 220 tests, half of them on PostgreSQL
 * (a schema each), about 100 s alone on a busy 2-core machine; beside the other test files, more.
 */
const CONFORMANCE_TIMEOUT = 300_000
if (pgUnreachable) console.warn(`PostgreSQL on Bun and Deno skipped: ${pgUnreachable}`)

/** Runs a command to its end: exit status and everything it printed. */
const runToEnd = (command: string, args: string[], cwd: string) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.on('close', (status) => resolve({ status, output }))
  })

/** Starts a server process and waits up to 30 s for its `listening on http://localhost:<port>` line (workerd starts slowly on a busy machine). */
const startServer = async (command: string, args: string[], cwd: string, env: Record<string, string>) => {
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  for (let i = 0; i < 600; i++) {
    const port = /listening on http:\/\/localhost:(\d+)/.exec(stdout)?.[1]
    if (port) {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      return { base: `http://127.0.0.1:${port}`, stdout: () => stdout, stop: () => child.kill('SIGTERM'), exited }
    }
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`${command} ${args.join(' ')} did not start.\nstdout: ${stdout}\nstderr: ${stderr}`)
}

// The reference server and the second service that trusts its tokens, both as built.
const APP_MAIN = join(PACKAGE, '..', '..', 'apps', 'todo-api', 'dist', 'main.js')
const secondServiceUnbuilt = [APP_MAIN, join(PACKAGE, '..', 'verify', 'dist', 'index.js')].find((file) => !existsSync(file))
if (secondServiceUnbuilt) console.warn(`the second-service example skipped: ${secondServiceUnbuilt} is not built (pnpm build)`)

// The runtimes side by side: each flow waits out the refresh grace, so they wait together.
describe.concurrent('each runtime', () => {
  const stops: (() => void)[] = []
  afterAll(() => {
    for (const stop of stops) stop()
  })

  describe('on Node', () => {
    it.skipIf(unbuilt !== null)('runs the example over HTTP: the whole flow', { timeout: 60_000 }, async () => {
      const server = await startServer(process.execPath, ['server.js'], join(EXAMPLES, 'node'), {
        PORT: '0',
        AUTH_SECRET: SECRET,
        DATABASE_PATH: join(mkdtempSync(join(tmpdir(), 'latchkey-node-example-')), 'auth.db'),
      })
      try {
        await runtimeFlow(server.base, server.stdout)
      } finally {
        server.stop()
      }
    })
  })

  describe('a second service (examples/other-service) trusting the reference server through @latchkey/verify', () => {
    it.skipIf(secondServiceUnbuilt !== undefined)(
      'answers a token from a sign-in with 200, a tampered one with 401',
      {
        timeout: 60_000,
      },
      async () => {
        const { privateKey } = await generateKeyPair('EdDSA', { extractable: true })
        const signingKey = { ...(await exportJWK(privateKey)), kid: 'example-1' }
        const latchkey = await startServer(process.execPath, [APP_MAIN], join(PACKAGE, '..', '..', 'apps', 'todo-api'), {
          PORT: '0',
          NODE_ENV: 'development',
          AUTH_SECRET: SECRET,
          AUTH_SIGNING_KEYS: JSON.stringify([signingKey]),
          DATABASE_URL: `file:${join(mkdtempSync(join(tmpdir(), 'latchkey-other-service-')), 'todo.db')}`,
        })
        stops.push(latchkey.stop)
        const service = await startServer(process.execPath, ['server.js'], join(EXAMPLES, 'other-service'), {
          PORT: '0',
          LATCHKEY_URL: latchkey.base,
        })
        stops.push(service.stop)
        const account = { name: 'Ada', email: `ada-${Date.now()}@example.com`, password: 'plum tractor violet lantern' }
        const signup = await fetch(`${latchkey.base}/auth/signup`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(account),
        })
        expect(signup.status).toBe(201)
        const { accessToken, user } = (await signup.json()) as { accessToken: string; user: { id: string } }
        const reports = (token: string) => fetch(`${service.base}/reports`, { headers: { Authorization: `Bearer ${token}` } })

        const trusted = await reports(accessToken)
        expect(trusted.status).toBe(200)
        expect(await trusted.json()).toMatchObject({ user: user.id, reports: [] })
        const [header, payload, signature] = accessToken.split('.') as [string, string, string]
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
        const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`
        const refused = await reports(tampered)
        expect(refused.status).toBe(401)
        expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
        expect((await fetch(`${service.base}/reports`)).status).toBe(401)
      },
    )
  })

  describe.skipIf(bunMissing !== null)('on Bun', () => {
    it('passes the store conformance suite on bun:sqlite and on PostgreSQL through pg', {
      timeout: CONFORMANCE_TIMEOUT,
    }, async () => {
      const { status, output } = await runToEnd(BUN, ['test', './src/bun-sqlite/store.bun.test.ts'], PACKAGE)
      expect(status, output.slice(-4000)).toBe(0)
      expect(output).toMatch(/\b0 fail\b/)
      expect(Number(/(\d+) pass/.exec(output)?.[1])).toBeGreaterThanOrEqual(minimumPassed)
    })

    it('verifies WebAuthn registrations and assertions (ES256, Ed25519) with @simplewebauthn/server', {
      timeout: 60_000,
    }, async () => {
      const { status, output } = await runToEnd(BUN, ['test/passkey-runtime-check.ts'], PACKAGE)
      expect(status, output.slice(-4000)).toBe(0)
      expect(output).toContain('ok ES256\nok Ed25519')
    })

    it('runs the example over HTTP: the whole flow, with the client address from hono/bun', { timeout: 60_000 }, async () => {
      const server = await startServer(BUN, ['--conditions=@latchkey/source', 'server.ts'], join(EXAMPLES, 'bun'), {
        PORT: '0',
        AUTH_SECRET: SECRET,
        DATABASE_PATH: join(mkdtempSync(join(tmpdir(), 'latchkey-bun-example-')), 'auth.db'),
      })
      stops.push(server.stop)
      await runtimeFlow(server.base, server.stdout)
    })
  })

  describe.skipIf(denoMissing !== null)('on Deno', () => {
    it('passes the store conformance suite on node:sqlite and on PostgreSQL through pg', {
      timeout: CONFORMANCE_TIMEOUT,
    }, async () => {
      const vitest = join(PACKAGE, 'node_modules', 'vitest', 'vitest.mjs')
      const args = ['run', '-A', '--node-modules-dir=manual', vitest, 'run', '--config', 'vitest.deno.config.ts']
      const { status, output } = await runToEnd(DENO, args, PACKAGE)
      expect(status, output.slice(-4000)).toBe(0)
      expect(Number(/Tests\s+(\d+) passed/.exec(output)?.[1])).toBeGreaterThanOrEqual(minimumPassed)
      expect(output).not.toMatch(/failed/)
    })

    it('verifies WebAuthn registrations and assertions (ES256, Ed25519) with @simplewebauthn/server', {
      timeout: 60_000,
    }, async () => {
      const args = ['run', '-A', '--sloppy-imports', '--node-modules-dir=manual', 'test/passkey-runtime-check.ts']
      const { status, output } = await runToEnd(DENO, args, PACKAGE)
      expect(status, output.slice(-4000)).toBe(0)
      expect(output).toContain('ok ES256\nok Ed25519')
    })

    it.skipIf(unbuilt !== null)(
      'runs the example over HTTP: the whole flow, with the client address from hono/deno',
      {
        timeout: 60_000,
      },
      async () => {
        const server = await startServer(DENO, ['run', '-A', '--node-modules-dir=manual', 'server.ts'], join(EXAMPLES, 'deno'), {
          PORT: '0',
          AUTH_SECRET: SECRET,
          DATABASE_PATH: join(mkdtempSync(join(tmpdir(), 'latchkey-deno-example-')), 'auth.db'),
        })
        stops.push(server.stop)
        await runtimeFlow(server.base, server.stdout)
      },
    )
  })

  describe('on Cloudflare Workers (workerd, through Miniflare)', () => {
    /** A Miniflare running `bundle` with a D1 database and `bindings`, on a loopback port. */
    const workerd = (bundle: string, bindings: Record<string, string> = {}) => {
      const mf = new Miniflare({
        // The bundle as one module, as given (the hasher's import of the native addon, by a
        // variable name, fails inside workerd and falls back to the portable argon2id).
        modules: [{ type: 'ESModule', path: 'worker.js', contents: readFileSync(bundle, 'utf8') }],
        compatibilityDate: '2025-09-01',
        // A fixed request.cf: Miniflare would otherwise fetch one from workers.cloudflare.com.
        cf: { country: 'NL' },
        d1Databases: ['DB'],
        bindings,
        port: 0,
      })
      stops.push(() => void mf.dispose())
      return mf
    }
    /** Bundles `entry` as wrangler would, from the library's sources (no build needed). */
    const bundle = async (entry: string, alias: Record<string, string> = {}) => {
      const outfile = join(mkdtempSync(join(tmpdir(), 'latchkey-worker-')), 'worker.js')
      await build({
        entryPoints: [entry],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        conditions: ['@latchkey/source', 'workerd', 'worker', 'browser'],
        alias,
        outfile,
        logLevel: 'error',
      })
      return outfile
    }

    it('verifies WebAuthn registrations and assertions (ES256, Ed25519) with @simplewebauthn/server inside workerd', {
      timeout: 60_000,
    }, async () => {
      // nodejs_compat for the test's software authenticator (node:crypto, Buffer); the library
      // itself uses Web Crypto only.
      const worker = join(mkdtempSync(join(tmpdir(), 'latchkey-worker-')), 'worker.js')
      await build({
        entryPoints: [join(PACKAGE, 'test', 'workerd', 'passkey-worker.ts')],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        conditions: ['workerd', 'worker', 'browser'],
        external: ['node:crypto'],
        outfile: worker,
        logLevel: 'error',
      })
      const mf = new Miniflare({
        modules: [{ type: 'ESModule', path: 'worker.js', contents: readFileSync(worker, 'utf8') }],
        compatibilityDate: '2025-09-01',
        compatibilityFlags: ['nodejs_compat'],
        cf: { country: 'NL' },
      })
      stops.push(() => void mf.dispose())
      const res = await mf.dispatchFetch('http://localhost/')
      expect(await res.text()).toBe('ok ES256\nok Ed25519')
    })

    it('passes the store conformance suite with the D1 store running inside workerd', {
      timeout: CONFORMANCE_TIMEOUT,
    }, async () => {
      const worker = await bundle(join(PACKAGE, 'test', 'workerd', 'conformance-worker.ts'), {
        vitest: join(PACKAGE, 'test', 'workerd', 'vitest-shim.ts'),
      })
      const mf = workerd(worker)
      const outcomes = (await (await mf.dispatchFetch('http://localhost/')).json()) as { name: string; error: string | null }[]
      expect(outcomes.filter((o) => o.error !== null)).toEqual([])
      expect(outcomes.length).toBeGreaterThanOrEqual(50)
    })

    it('runs the example over HTTP with D1: the whole flow, with the client address from hono/cloudflare-workers', {
      timeout: 90_000,
    }, async () => {
      const worker = await bundle(join(EXAMPLES, 'workers', 'src', 'worker.ts'))
      // The mail API the worker posts to: every mail and event, as the lines the flow reads.
      let received = ''
      const sink = createServer((req, res) => {
        let body = ''
        req.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk
        })
        req.on('end', () => {
          received += `${body}\n`
          res.end()
        })
      })
      await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
      stops.push(() => sink.close())
      const mf = workerd(worker, { AUTH_SECRET: SECRET, MAIL_URL: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/` })
      const url = await mf.ready
      await runtimeFlow(url.origin.replace('localhost', '127.0.0.1'), () => received)
    })

    it.skipIf(unbuilt !== null)(
      "starts as its README says (node local.mjs, on the library's dist/), and D1 keeps the accounts across a restart",
      { timeout: 60_000 },
      async () => {
        const env = { AUTH_SECRET: SECRET, PORT: '0', D1_PERSIST: mkdtempSync(join(tmpdir(), 'latchkey-d1-')) }
        const dir = join(EXAMPLES, 'workers')
        const email = `ada-${Date.now()}@example.com`
        const body = { name: 'Ada', email, password: 'plum tractor violet lantern' }
        const post = (base: string, path: string) =>
          fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
        const first = await startServer(process.execPath, ['local.mjs'], dir, env)
        stops.push(first.stop)
        expect((await post(first.base, '/auth/signup')).status).toBe(201)
        // The Worker's mails and events print as JSON lines, as the README says.
        for (let i = 0; i < 100 && !first.stdout().includes('"kind":"verify-email"'); i++)
          await new Promise((resolve) => setTimeout(resolve, 50))
        expect(first.stdout()).toContain(`"to":"${email}"`)
        first.stop()
        await first.exited
        const second = await startServer(process.execPath, ['local.mjs'], dir, env)
        stops.push(second.stop)
        expect((await post(second.base, '/auth/login')).status).toBe(200)
      },
    )
  })
})
