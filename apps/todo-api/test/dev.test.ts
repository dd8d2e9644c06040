/**
 * Development mode: `--dev` (the `pnpm dev` script) generates AUTH_SECRET into the app's
 * `.env` and reuses it; without SMTP_URL the reset link is printed on one line and works; the
 * script restarts for an edit of the source and for nothing else.
 */
import { randomUUID } from 'node:crypto'
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { APP_DIR, freshDir, request, signup, startServer } from './support.js'

/** A copy of the built app in a temp folder, so `.env` and `data/` are written there, not in the repo. */
const appCopy = () => {
  const dir = join(freshDir(), 'todo-api')
  mkdirSync(dir)
  for (const entry of ['dist', 'drizzle', 'package.json']) cpSync(join(APP_DIR, entry), join(dir, entry), { recursive: true })
  symlinkSync(join(APP_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}

describe('pnpm dev', () => {
  it('generates AUTH_SECRET and AUTH_ENCRYPTION_KEY once, saves them to the app .env, says so, and reuses them on the next start', async () => {
    const dir = appCopy()
    const main = join(dir, 'dist', 'main.js')
    const first = await startServer({
      main,
      args: ['--dev'],
      noDefaultSecret: true,
      env: { DATABASE_URL: undefined, NODE_ENV: undefined },
    })
    expect(first.stdout()).toMatch(/AUTH_SECRET.*generated.*\.env/)
    expect(first.stdout()).toMatch(/NODE_ENV=development/)
    const envFile = join(dir, '.env')
    const secret = /^AUTH_SECRET=(\S+)$/m.exec(readFileSync(envFile, 'utf8'))?.[1] ?? ''
    expect(secret.length).toBeGreaterThanOrEqual(32)
    expect(statSync(envFile).mode & 0o077).toBe(0)
    expect(first.stdout() + first.stderr()).not.toContain(secret)
    expect(first.stdout()).toMatch(/AUTH_ENCRYPTION_KEY.*generated.*\.env/)
    const key = /^AUTH_ENCRYPTION_KEY=(\S+)$/m.exec(readFileSync(envFile, 'utf8'))?.[1] ?? ''
    expect(key.length).toBeGreaterThanOrEqual(32)
    expect(key).not.toBe(secret)
    expect(first.stdout() + first.stderr()).not.toContain(key)
    // With both set, the library has nothing to warn about.
    expect(first.stderr()).not.toMatch(/encryptionKeys/)
    // The default database: ./data/todo.db relative to the app, created on first start.
    expect(existsSync(join(dir, 'data', 'todo.db'))).toBe(true)

    const ada = await signup(first.base, 'Ada')
    expect(await first.stop()).toEqual({ code: 0, signal: null })

    const second = await startServer({ main, args: ['--dev'], noDefaultSecret: true, env: { DATABASE_URL: undefined } })
    try {
      expect(second.stdout()).not.toMatch(/generated/)
      // Same secret, same database: the token from the first run still works.
      const me = await request(second.base, 'GET', '/auth/me', { token: ada.token })
      expect(me.status).toBe(200)
      expect(readFileSync(envFile, 'utf8').match(/AUTH_SECRET=/g)).toHaveLength(1)
      expect(readFileSync(envFile, 'utf8').match(/AUTH_ENCRYPTION_KEY=/g)).toHaveLength(1)
    } finally {
      await second.stop()
    }
  })
})

describe('pnpm dev watching the source', () => {
  /** The `dev` script of package.json, as the runtime's arguments, the script and its own. */
  const devScript = () => {
    const scripts = JSON.parse(readFileSync(join(APP_DIR, 'package.json'), 'utf8')).scripts as Record<string, string>
    const [exec, node, ...rest] = (scripts.dev ?? '').split(/\s+/)
    expect([exec, node]).toEqual(['exec', 'node'])
    const main = rest.indexOf('src/main.ts')
    return { flags: rest.slice(0, main), args: rest.slice(main + 1) }
  }

  it('restarts for an edit of the source, never because another project linked the same package files', {
    timeout: 90_000,
  }, async () => {
    const { flags, args } = devScript()
    const server = await startServer({
      runtime: [process.execPath, ...flags],
      main: 'src/main.ts',
      args,
      cwd: APP_DIR,
      startTimeoutMs: 60_000,
    })
    const restarts = () => server.stdout().match(/^Restarting /gm)?.length ?? 0
    const listening = () => server.stdout().match(/^listening on /gm)?.length ?? 0
    // pnpm installs a package by hard-linking the files of its store: installing hono into any other
    // project on the machine adds a link to the very file this server imported, and the old
    // `node --watch` took the link count's change for an edit (a restart, and a refused request).
    const imported = realpathSync(fileURLToPath(import.meta.resolve('hono')))
    const elsewhere = join(APP_DIR, 'node_modules', `.watch-probe-${randomUUID()}`)
    mkdirSync(elsewhere)
    try {
      linkSync(imported, join(elsewhere, 'index.js'))
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      expect(restarts()).toBe(0)
      expect((await request(server.base, 'GET', '/health')).status).toBe(200)

      // Saving a source file (here: its times set again, its text untouched) restarts it.
      const source = join(APP_DIR, 'src', 'main.ts')
      const { atime, mtime } = statSync(source)
      utimesSync(source, atime, mtime)
      await expect.poll(restarts, { timeout: 15_000 }).toBe(1)
      await expect.poll(listening, { timeout: 60_000 }).toBe(2)
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
      await server.stop()
    }
  })
})

describe('reset link without SMTP_URL in development', () => {
  it('prints exactly one line with $PUBLIC_URL/reset-password?token=…, and that token resets the password', async () => {
    const server = await startServer({ env: { NODE_ENV: 'development' } })
    try {
      const ada = await signup(server.base, 'Ada')
      await request(server.base, 'POST', '/auth/forgot-password', { body: { email: 'nobody@example.com' } })
      const forgot = await request(server.base, 'POST', '/auth/forgot-password', { body: { email: ada.email } })
      expect(forgot.status).toBe(202)

      const prefix = `http://localhost:${server.port}/reset-password?token=`
      const line = await server.waitForOutput(new RegExp(prefix.replace(/[.?]/g, '\\$&')))
      const linkLines = server
        .stdout()
        .split('\n')
        .filter((l) => l.includes('/reset-password?token='))
      expect(linkLines).toEqual([line])
      expect(line).toContain(ada.email)

      const link = new URL(/http:\/\/\S+/.exec(line)?.[0] ?? '')
      const page = await request(server.base, 'GET', `${link.pathname}${link.search}`)
      expect(page.status).toBe(200)
      const token = link.searchParams.get('token') ?? ''
      const newPassword = 'copper meadow ninety owls'
      expect((await request(server.base, 'POST', '/auth/reset-password', { body: { token, newPassword } })).status).toBe(204)
      expect((await request(server.base, 'GET', '/auth/me', { token: ada.token })).status).toBe(401)
      expect(
        (await request(server.base, 'POST', '/auth/login', { body: { email: ada.email, password: newPassword } })).status,
      ).toBe(200)
    } finally {
      await server.stop()
    }
  })
})
