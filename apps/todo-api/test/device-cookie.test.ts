/**
 * The device cookie in the reference server over real HTTP (docs/guide/account-protection.md#the-device-cookie),
 * on SQLite and PostgreSQL, where cookies are secure: it is `__Host-device` (Path=/, no Domain);
 * a cookie a sibling host planted beside it never becomes known to the account; the previous
 * release's `__Secure-device` of a known browser stays known; and the documented rotation of
 * AUTH_SECRET (docs/guide/rotating-keys.md: add the new secret first, later remove the old one)
 * forgets no known browser, whether or not its owner signed in meanwhile.
 */
import { createHmac } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import {
  cookieFrom,
  freshPostgresSchema,
  postgresUnreachable,
  type RunningServer,
  randomSecret,
  request,
  startServer,
} from './support.js'

const unreachable = await postgresUnreachable()
const SECURE = { NODE_ENV: 'development', PUBLIC_URL: 'https://todo.example.test' }
const PASSWORD = 'plum tractor device lantern'

/** The previous release's cookie where cookies were secure: `__Secure-device=<id>.<HMAC under a key derived from the secret>`. */
const previousCookie = (id: string, secret: string) => {
  const mac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('base64url')
  return `__Secure-device=${id}.${mac(mac(secret, 'latchkey device cookie v1'), id)}`
}

const STORES = [
  { name: 'sqlite', skip: null, database: async () => ({ url: null as string | null, close: async () => {} }) },
  {
    name: 'postgres',
    skip: unreachable,
    database: async () => {
      const db = await freshPostgresSchema()
      return { url: db.url as string | null, close: () => db.drop() }
    },
  },
] as const

describe.each(STORES)('the device cookie over HTTP on $name', ({ skip, database }) => {
  const running: RunningServer[] = []
  const closing: (() => Promise<void>)[] = []
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()))
    for (const close of closing.splice(0)) await close()
  })
  const run = it.skipIf(skip !== null)

  /** The server on one database across restarts, with `secret` as AUTH_SECRET. */
  const servers = async () => {
    const db = await database()
    closing.push(db.close)
    let url = db.url
    return async (secret: string) => {
      const env = { ...SECURE, AUTH_SECRET: secret, ...(url ? { DATABASE_URL: url } : {}) }
      const server = await startServer({ env, startTimeoutMs: 20_000 })
      url ??= `file:${server.dbPath}`
      running.push(server)
      return server
    }
  }
  const signUp = async (server: RunningServer, email: string) => {
    const res = await request(server.base, 'POST', '/auth/signup', { body: { name: 'N', email, password: PASSWORD } })
    expect(res.status).toBe(201)
    return { email, cookie: cookieFrom(res, 'device') as string, id: (res.body as { user: { id: string } }).user.id }
  }
  const login = async (server: RunningServer, email: string, cookie?: string) => {
    const res = await request(server.base, 'POST', '/auth/login', {
      body: { email, password: PASSWORD },
      ...(cookie ? { cookie } : {}),
    })
    expect(res.status).toBe(200)
    return res
  }
  /** How many `login.new_device` events the server wrote for `userId`. */
  const newDevices = (server: RunningServer, userId: string) =>
    server
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"type":"login.new_device"') && line.includes(`"userId":"${userId}"`)).length
  /** Waits until the server wrote the event of `userId`'s new browser: every earlier event is written by then. */
  const announced = async (server: RunningServer, userId: string) => {
    for (let i = 0; i < 100 && newDevices(server, userId) === 0; i++) await new Promise((r) => setTimeout(r, 50))
    expect(newDevices(server, userId)).toBe(1)
  }

  run(
    'is __Host-device (Secure, Path=/, no Domain); a planted cookie beside it never becomes known',
    async () => {
      const server = await (await servers())(randomSecret())
      const signup = await request(server.base, 'POST', '/auth/signup', {
        body: { name: 'A', email: 'ada@example.com', password: PASSWORD },
      })
      const line = signup.headers.getSetCookie().find((l) => l.startsWith('__Host-device=')) ?? ''
      expect(line).toMatch(/^__Host-device=[\w-]{22}; Max-Age=31536000; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
      const ada = { cookie: line.split(';')[0] as string, id: (signup.body as { user: { id: string } }).user.id }
      const mallory = await signUp(server, 'mallory@example.com')
      // Mallory plants her own id in Ada's browser, under the name a sibling host can still write.
      const planted = `__Secure-device=${mallory.cookie.split('=')[1]}`
      const res = await login(server, 'ada@example.com', `${planted}; ${ada.cookie}`)
      expect(cookieFrom(res, 'device')).toBe(ada.cookie)
      // Mallory's browser is no browser of Ada's: that sign-in, and only that one, is announced.
      await login(server, 'ada@example.com', mallory.cookie)
      await announced(server, ada.id)
    },
    60_000,
  )

  run(
    'the documented rotation of AUTH_SECRET forgets no known browser, nor the previous release’s cookie',
    async () => {
      const start = await servers()
      const [oldSecret, newSecret] = [randomSecret(), randomSecret()]
      const first = await start(oldSecret)
      const ada = await signUp(first, 'ada@example.com')
      const bob = await signUp(first, 'bob@example.com')
      // Cat's browser as the previous release left it: known, its cookie under the old name and MAC.
      const cat = await signUp(first, 'cat@example.com')
      const catCookie = previousCookie(cat.cookie.split('=')[1] as string, oldSecret)
      await first.stop()

      // Step 1: the new secret first, the old one after it. Ada signs in meanwhile; Bob and Cat do not.
      const rotating = await start(`${newSecret},${oldSecret}`)
      expect(cookieFrom(await login(rotating, ada.email, ada.cookie), 'device')).toBe(ada.cookie)
      const dave = await signUp(rotating, 'dave@example.com')
      await login(rotating, dave.email)
      await announced(rotating, dave.id)
      expect(newDevices(rotating, ada.id)).toBe(0)
      await rotating.stop()

      // Step 2: the old secret removed. Every one of them is still a known browser.
      const rotated = await start(newSecret)
      for (const [who, cookie] of [
        [ada, ada.cookie],
        [bob, bob.cookie],
        [cat, catCookie],
      ] as const) {
        const res = await login(rotated, who.email, cookie)
        expect(cookieFrom(res, 'device')).toMatch(/^__Host-device=[\w-]{22}$/)
      }
      // A browser none of them used is still announced; none of theirs was.
      await login(rotated, bob.email)
      await announced(rotated, bob.id)
      expect(newDevices(rotated, ada.id) + newDevices(rotated, cat.id)).toBe(0)
    },
    120_000,
  )
})
