/**
 * The library's own CPU per signup and per login, without the password hash
 * (docs/PERFORMANCE.md#signups-two-writes-prepared): `createAuth` on a SQLite file in a temporary
 * folder with the fast hasher of `@latchkey/auth/testing`, requests through Hono in process, mail
 * and events handed to hooks that do nothing. What is left is everything a signup or a login does
 * besides hashing: validation, the limiter, the user, the session and its token, the device, the
 * verification token, the events. Each login comes from a new browser. Run it after
 * `pnpm --filter @latchkey/auth build`:
 *
 *   node packages/auth/scripts/library-cpu.mjs [rounds=3] [per round=300]
 *
 * Compare builds by running it against each in turn, alternating: the machine's noise moves a
 * round by 10-20 %.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAuth } from '@latchkey/auth'
import { migrateSqlite, openSqlite, sqliteStore } from '@latchkey/auth/sqlite'
import { fastHasher } from '@latchkey/auth/testing'
import { Hono } from 'hono'

const ROUNDS = Number(process.argv[2] ?? 3)
const PER_ROUND = Number(process.argv[3] ?? 300)
const PASSWORD = 'correct horse battery staple 42'

const dir = mkdtempSync(join(tmpdir(), 'library-cpu-'))
const db = openSqlite(join(dir, 'auth.db'))
migrateSqlite(db)
const auth = createAuth({
  secret: 'kP3v9xQ2mZ7tR4wL8nB1cF6hJ0sD5gY2',
  store: sqliteStore(db),
  hasher: fastHasher(),
  // Each request from an address of its own, so the limits count nothing twice.
  trustProxy: true,
  sendMail: () => {},
  onEvent: () => {},
  log: () => {},
})
const app = new Hono().route('/auth', auth.routes)

/** CPU of this process so far, µs. */
const cpu = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const address = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
const post = async (path, n, body, status) => {
  const reply = await app.request(`/auth${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address(n) },
    body: JSON.stringify(body),
  })
  if (reply.status !== status) throw new Error(`${path}: ${reply.status} ${await reply.text()}`)
  await reply.arrayBuffer()
}

let users = 0
const signup = () => post('/signup', users, { name: 'Ada', email: `ada${users++}@example.com`, password: PASSWORD }, 201)
const login = (n) => post('/login', 1_000_000 + n, { email: `ada${n}@example.com`, password: PASSWORD }, 200)

try {
  // Warm-up: the statements prepared, the code compiled.
  for (let i = 0; i < PER_ROUND; i++) await signup()
  await auth.settled()
  for (let round = 1; round <= ROUNDS; round++) {
    let started = cpu()
    for (let i = 0; i < PER_ROUND; i++) await signup()
    await auth.settled()
    const perSignup = (cpu() - started) / PER_ROUND
    started = cpu()
    for (let i = 0; i < PER_ROUND; i++) await login(round * PER_ROUND + i)
    await auth.settled()
    const perLogin = (cpu() - started) / PER_ROUND
    console.log(`round ${round}: CPU per signup ${perSignup.toFixed(0)} µs, per login (a new browser) ${perLogin.toFixed(0)} µs`)
  }
} finally {
  await auth.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
}
