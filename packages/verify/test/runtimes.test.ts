/**
 * `@latchkey/verify` on the runtimes it promises (Web APIs only): the same check, a good token
 * verified and a tampered one refused against a key server on loopback, on Bun, on Deno, and
 * inside workerd (Cloudflare Workers, through Miniflare). The binaries are @latchkey/auth's
 * devDependencies; without them these skip and say why.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { Miniflare } from 'miniflare'
import { afterAll, describe, expect, it } from 'vitest'

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const AUTH = join(PACKAGE, '..', 'auth')
const BUN = join(AUTH, 'node_modules', 'bun', 'bin', 'bun.exe')
const DENO = join(AUTH, 'node_modules', 'deno', 'deno')
const CHECK = join(PACKAGE, 'test', 'runtime-check.ts')

const { privateKey, publicKey } = await generateKeyPair('EdDSA')
const jwk = { ...(await exportJWK(publicKey)), kid: 'rt-1', alg: 'EdDSA', use: 'sig' }
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify({ keys: [jwk] }))
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const JWKS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`
afterAll(() => server.close())

const iat = Math.floor(Date.now() / 1000)
const good = await new SignJWT({ sid: 's-1', jti: 'j-1' })
  .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: 'rt-1' })
  .setSubject('u-1')
  .setIssuedAt(iat)
  .setExpirationTime(iat + 900)
  .setIssuer('latchkey')
  .setAudience('latchkey')
  .sign(privateKey)
const [h, p, s] = good.split('.') as [string, string, string]
const bad = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'u-2' })).toString('base64url')}.${s}`
const expected = { sub: 'u-1', refused: 'invalid_signature' }

const runToEnd = (command: string, args: string[]) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, {
      cwd: PACKAGE,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', JWKS_URL, GOOD: good, BAD: bad },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.on('close', (status) => resolve({ status, output }))
  })

const lastJson = (output: string) => JSON.parse(output.split('\n').findLast((line) => line.startsWith('{')) ?? 'null') as unknown

describe.concurrent('verify() on each runtime', () => {
  it.skipIf(!existsSync(BUN))('on Bun', { timeout: 60_000 }, async () => {
    const { status, output } = await runToEnd(BUN, ['run', CHECK])
    expect(status, output).toBe(0)
    expect(lastJson(output)).toEqual(expected)
  })

  it.skipIf(!existsSync(DENO))('on Deno', { timeout: 60_000 }, async () => {
    const { status, output } = await runToEnd(DENO, [
      'run',
      '-A',
      '--node-modules-dir=manual',
      '--unstable-sloppy-imports',
      CHECK,
    ])
    expect(status, output).toBe(0)
    expect(lastJson(output)).toEqual(expected)
  })

  it('inside workerd (Cloudflare Workers)', { timeout: 90_000 }, async () => {
    const outfile = join(mkdtempSync(join(tmpdir(), 'latchkey-verify-worker-')), 'worker.js')
    await build({
      entryPoints: [join(PACKAGE, 'test', 'runtime-worker.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      outfile,
      logLevel: 'error',
    })
    const mf = new Miniflare({
      modules: [{ type: 'ESModule', path: 'worker.js', contents: readFileSync(outfile, 'utf8') }],
      compatibilityDate: '2025-09-01',
      cf: { country: 'NL' },
      bindings: { JWKS_URL },
    })
    try {
      const res = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify({ good, bad }) })
      expect(await res.json()).toEqual(expected)
    } finally {
      await mf.dispose()
    }
  })
})
