/**
 * GET /admin/stats behind the `admin` policy, and the CLI that grants the role, run for real
 * as documented: `pnpm --filter @latchkey/todo-api cli set-role <email> <role>`.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, APP_DIR, REPO_ROOT, type RunningServer, request, run, signup, startServer } from './support.js'

const CLI = join(APP_DIR, 'dist', 'cli.js')

let server: RunningServer
let ada: Account
let bob: Account

/** The documented command, through pnpm and tsx (about 2 s). */
const pnpmCli = (...args: string[]) =>
  run('pnpm', ['--silent', '--filter', '@latchkey/todo-api', 'cli', ...args], {
    cwd: REPO_ROOT,
    env: { DATABASE_URL: `file:${server.dbPath}` },
    inheritEnv: true,
    timeoutMs: 20_000,
  })

/** The built CLI, as production runs it: `node dist/cli.js`. */
const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { DATABASE_URL: `file:${server.dbPath}` } })

beforeAll(async () => {
  server = await startServer()
  ;[ada, bob] = await Promise.all([signup(server.base, 'Ada'), signup(server.base, 'Bob')])
  for (const title of ['a', 'b', 'c']) await request(server.base, 'POST', '/todos', { token: bob.token, body: { title } })
})

afterAll(async () => {
  await server?.stop()
})

describe('GET /admin/stats', () => {
  it('answers 401 to an anonymous caller and 403 to a signed-in non-admin', async () => {
    const anonymous = await request(server.base, 'GET', '/admin/stats')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    const user = await request(server.base, 'GET', '/admin/stats', { token: ada.token })
    expect(user.status).toBe(403)
    expect(user.headers.get('content-type')).toBe('application/problem+json')
    expect(user.body).toMatchObject({ status: 403, detail: expect.stringContaining('admin') })
  })

  it('lets an admin in on the very next request after `cli set-role`, and out again after a demotion', async () => {
    const granted = await pnpmCli('set-role', `  ${ada.email.toUpperCase()} `, 'admin')
    expect(granted.code, granted.stderr).toBe(0)
    expect(granted.stdout).toContain(ada.email)

    // Same access token, no new sign-in.
    const stats = await request(server.base, 'GET', '/admin/stats', { token: ada.token })
    expect(stats.status).toBe(200)
    expect(stats.body).toEqual({ users: 2, todos: 3 })
    expect((await request(server.base, 'GET', '/admin/stats', { token: bob.token })).status).toBe(403)

    const demoted = await cli('set-role', ada.email, 'member')
    expect(demoted.code, demoted.stderr).toBe(0)
    expect((await request(server.base, 'GET', '/admin/stats', { token: ada.token })).status).toBe(403)
  })

  it('exits non-zero for an unknown email and for bad usage', async () => {
    const unknown = await cli('set-role', 'nobody@example.com', 'admin')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('nobody@example.com')
    const usage = await cli('set-role', ada.email)
    expect(usage.code).not.toBe(0)
    expect(usage.stderr).toContain('usage')
  })
})
