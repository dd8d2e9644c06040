// Runs src/worker.ts on this machine as Cloudflare would: bundled with esbuild, in workerd through
// Miniflare, with a local D1 database kept in .d1/ (D1_PERSIST names another folder; delete it to
// start afresh). Nothing is fetched from the network. AUTH_SECRET is required; PORT (default 8787;
// 0 picks a free one); PUBLIC_URL and MAIL_URL are passed to the Worker as bindings. Ctrl-C or
// SIGTERM stops workerd and exits 0. @latchkey/auth comes from its dist/ (pnpm build), as an app would get it.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'

const { AUTH_SECRET, PUBLIC_URL, MAIL_URL } = process.env
if (!AUTH_SECRET || AUTH_SECRET.length < 32) {
  console.error('example-workers: AUTH_SECRET is required: at least 32 characters (openssl rand -base64 32)')
  process.exit(1)
}
const port = Number(process.env.PORT ?? 8787)

const outfile = join(mkdtempSync(join(tmpdir(), 'latchkey-worker-')), 'worker.js')
await build({
  entryPoints: [new URL('src/worker.ts', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  outfile,
  logLevel: 'error',
})

const mf = new Miniflare({
  // The bundle as one module, as given (the hasher's import of the native addon, by a variable
  // name, fails inside workerd and falls back to the portable argon2id).
  modules: [{ type: 'ESModule', path: 'worker.js', contents: readFileSync(outfile, 'utf8') }],
  compatibilityDate: '2025-09-01',
  // A fixed request.cf: Miniflare would otherwise fetch one from workers.cloudflare.com.
  cf: { country: 'NL' },
  d1Databases: ['DB'],
  d1Persist: process.env.D1_PERSIST ?? new URL('.d1', import.meta.url).pathname,
  bindings: { AUTH_SECRET, ...(PUBLIC_URL ? { PUBLIC_URL } : {}), ...(MAIL_URL ? { MAIL_URL } : {}) },
  port,
})
const url = await mf.ready
console.log(`example-workers: listening on http://localhost:${url.port}`)

// Ahead of Miniflare's own signal hook, which exits 130 or 143: exit 0, and its exit hook still
// stops workerd (so Ctrl-C under pnpm prints no error).
for (const signal of ['SIGINT', 'SIGTERM']) process.prependOnceListener(signal, () => process.exit(0))
