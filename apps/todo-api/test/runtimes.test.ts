/**
 * The reference server on Bun and on Deno (docs/reference/operations.md#runtimes), as documented in docs/guide/reference-server.md: the built
 * `dist/main.js` on each runtime's own SQLite (`bun:sqlite`, `node:sqlite`) and on PostgreSQL
 * through `pg` (skipped, saying why, when PostgreSQL is unreachable), driven over HTTP:
 * health, the front end, signup, todos, refresh, a cross-site refusal, the client address in the
 * audit lines, and a graceful stop. The binaries are the library's devDependencies (from npm);
 * without them these skip and say why.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  cookieFrom,
  freshDir,
  freshPostgresSchema,
  postgresUnreachable,
  REPO_ROOT,
  request,
  signup,
  startServer,
} from './support.js'

// The binaries themselves (the library's devDependencies), not node_modules/.bin's shell
// wrappers: the stop signal must reach the runtime.
const MODULES = join(REPO_ROOT, 'packages', 'auth', 'node_modules')
const RUNTIMES = [
  { name: 'Bun', runtime: [join(MODULES, 'bun', 'bin', 'bun.exe')] },
  { name: 'Deno', runtime: [join(MODULES, 'deno', 'deno'), 'run', '-A', '--node-modules-dir=manual'] },
].map((r) => ({
  ...r,
  skip: existsSync(r.runtime[0] as string) ? null : `${r.runtime[0]} not found (pnpm install puts it there)`,
}))
for (const r of RUNTIMES) if (r.skip) console.warn(`the reference server on ${r.name} skipped: ${r.skip}`)
const pgSkip = await postgresUnreachable()

/** Each store the server can open: a `DATABASE_URL` for it, and what to drop afterwards. */
const STORES = [
  { store: 'its SQLite', skip: null, open: async () => ({ url: `file:${join(freshDir(), 'todo.db')}`, drop: async () => {} }) },
  { store: 'PostgreSQL', skip: pgSkip, open: freshPostgresSchema },
]

describe.concurrent.each(RUNTIMES)('the reference server on $name', ({ runtime, skip }) => {
  it.skipIf(skip !== null).for(STORES.filter((s) => s.skip === null))(
    'serves the API and the front end on $store, and stops gracefully',
    { timeout: 60_000 },
    async ({ open }) => {
      const db = await open()
      const server = await startServer({ runtime, env: { DATABASE_URL: db.url }, startTimeoutMs: 30_000 })
      try {
        const health = await request(server.base, 'GET', '/health')
        expect(health.body).toEqual({ status: 'ok' })
        // The security headers, each once, whichever response class the runtime's node:http made.
        expect(health.headers.get('x-content-type-options')).toBe('nosniff')
        expect(health.headers.get('strict-transport-security')).toBe('max-age=15552000; includeSubDomains')
        expect(health.headers.get('cache-control')).toBeNull()
        const page = await request(server.base, 'GET', '/')
        expect(page.status).toBe(200)
        expect(page.text).toContain('/assets/')

        const ada = await signup(server.base)
        const created = await request(server.base, 'POST', '/todos', { token: ada.token, body: { title: 'on another runtime' } })
        expect(created.status).toBe(201)
        const listed = await request(server.base, 'GET', '/todos', { token: ada.token })
        expect((listed.body as { title: string }[]).map((t) => t.title)).toEqual(['on another runtime'])
        expect(listed.headers.get('cache-control')).toBe('no-store')
        expect(listed.headers.get('x-frame-options')).toBe('SAMEORIGIN')
        expect((await request(server.base, 'GET', '/todos')).status).toBe(401)

        const refreshed = await request(server.base, 'POST', '/auth/refresh', { cookie: ada.refreshCookie })
        expect(refreshed.status).toBe(200)
        expect(cookieFrom(refreshed, 'refresh_token')).toBeTruthy()
        const foreign = await request(server.base, 'POST', '/auth/refresh', {
          cookie: cookieFrom(refreshed, 'refresh_token'),
          headers: { Origin: 'https://evil.example' },
        })
        expect(foreign.status).toBe(403)

        // The address in the audit lines is the client's, from the runtime's node:http.
        const audits = server
          .stdout()
          .split('\n')
          .filter((line) => line.startsWith('{"audit":'))
          .map((line) => (JSON.parse(line) as { audit: { ip: string | null } }).audit)
        expect(audits.length).toBeGreaterThan(0)
        for (const audit of audits) expect(audit.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/)
      } finally {
        const exit = await server.stop('SIGTERM')
        await db.drop()
        expect(exit.code).toBe(0)
        expect(server.stdout()).toMatch(/^stopped$/m)
      }
    },
  )
})
