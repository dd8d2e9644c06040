/**
 * The account lifecycle in the reference server (docs/reference/lifecycle.md), over HTTP with real SMTP:
 * every mail kind with its `X-Latchkey-Kind`, the token pages (a GET never spends), account
 * deletion taking the todos with it, and the audit lines: one JSON line per event, no secret.
 */
import Database from 'better-sqlite3'
import * as OTPAuth from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freshPostgresSchema,
  postgresUnreachable,
  type RunningServer,
  request,
  signup,
  startServer,
  startServerWithMail,
  type startSmtp,
} from './support.js'

let server: RunningServer
let smtp: Awaited<ReturnType<typeof startSmtp>>
const secrets = new Set<string>()

beforeAll(async () => {
  ;({ server, smtp } = await startServerWithMail())
})

afterAll(async () => {
  await server?.stop()
  await smtp?.close()
})

const tokenIn = (text: string, page: string) => {
  const link = new RegExp(`https?://\\S+/${page}\\?token=([\\w%.~-]+)`).exec(text)
  if (!link?.[1]) throw new Error(`no ${page} link in:\n${text}`)
  return decodeURIComponent(link[1])
}

const audit = () =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{"audit":'))
    .map((line) => (JSON.parse(line) as { audit: { type: string; userId?: string } }).audit)

describe('the account lifecycle in the reference server', () => {
  it('mails a verification link; opening its page spends nothing; the POST verifies', async () => {
    const before = smtp.mails.length
    const ada = await signup(server.base)
    secrets.add(ada.token).add(ada.password)
    const mail = await smtp.waitFor(ada.email, before, 5_000, 'verify-email')
    expect(mail.text).toMatch(/^X-Latchkey-Kind: verify-email\r?$/m)
    const token = tokenIn(mail.text, 'verify-email')
    secrets.add(token)

    const page = await request(server.base, 'GET', `/verify-email?token=${encodeURIComponent(token)}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.text).not.toContain(token)
    const me = async () =>
      (await request(server.base, 'GET', '/auth/me', { token: ada.token })).body as { emailVerified: boolean }
    expect((await me()).emailVerified).toBe(false)
    // From the account's own session: the password set at signup stays (204).
    expect((await request(server.base, 'POST', '/auth/verify-email', { token: ada.token, body: { token } })).status).toBe(204)
    expect((await me()).emailVerified).toBe(true)
    expect((await request(server.base, 'GET', '/confirm-email')).status).toBe(200)
  })

  it('tells the account of a password change by mail', async () => {
    const ada = await signup(server.base)
    const before = smtp.mails.length
    const newPassword = 'amber kettle over the hills'
    secrets.add(ada.token).add(ada.password).add(newPassword)
    const changed = await request(server.base, 'POST', '/auth/change-password', {
      token: ada.token,
      body: { currentPassword: ada.password, newPassword },
    })
    expect(changed.status).toBe(204)
    const notice = await smtp.waitFor(ada.email, before, 5_000, 'password-changed')
    expect(notice.text).not.toMatch(/token=/)
  })

  it('mails the two-factor code (add-credential) and, at a deletion, account-deleted; a recovery code names its use', async () => {
    const ada = await signup(server.base)
    secrets.add(ada.token).add(ada.password)
    const post = (path: string, body: unknown) => request(server.base, 'POST', path, { token: ada.token, body })
    expect((await post('/auth/two-factor/setup', { currentPassword: ada.password })).status).toBe(403)
    const verify = await smtp.waitFor(ada.email, 0, 5_000, 'verify-email')
    expect(
      (
        await request(server.base, 'POST', '/auth/verify-email', {
          token: ada.token,
          body: { token: tokenIn(verify.text, 'verify-email') },
        })
      ).status,
    ).toBe(204)

    const before = smtp.mails.length
    const setup = await post('/auth/two-factor/setup', { currentPassword: ada.password })
    expect(setup.status).toBe(200)
    const mail = await smtp.waitFor(ada.email, before, 5_000, 'add-credential')
    expect(mail.text).toMatch(/^X-Latchkey-Kind: add-credential\r?$/m)
    expect(mail.text).toMatch(/two-factor sign-in/)
    const emailCode = /^ {4}([0-9]{6})\r?$/m.exec(mail.text)?.[1] ?? ''
    expect(emailCode).toMatch(/^[0-9]{6}$/)
    secrets.add(emailCode)
    const totp = OTPAuth.URI.parse((setup.body as { uri: string }).uri)
    const enabled = await post('/auth/two-factor/enable', { code: totp.generate(), emailCode })
    expect(enabled.status).toBe(200)
    const [recovery] = (enabled.body as { recoveryCodes: string[] }).recoveryCodes

    expect((await post('/auth/delete-account', { currentPassword: ada.password })).status).toBe(400)
    const gone = smtp.mails.length
    expect((await post('/auth/delete-account', { currentPassword: ada.password, code: recovery })).status).toBe(204)
    const used = await smtp.waitFor(ada.email, gone, 5_000, 'recovery-code-used')
    expect(used.text).toMatch(/used to delete your account/)
    const deleted = await smtp.waitFor(ada.email, gone, 5_000, 'account-deleted')
    expect(deleted.text).toMatch(/^X-Latchkey-Kind: account-deleted\r?$/m)
    expect(deleted.text).not.toMatch(/token=/)
  })

  it('writes one JSON audit line per event, with no secret in any of them', async () => {
    const events = audit()
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['signup', 'email.verified', 'password.changed']))
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{"audit":'))
      .join('\n')
    for (const secret of secrets) expect(lines).not.toContain(secret)
    expect(lines).not.toMatch(/\$argon2|eyJ[\w-]+\.eyJ/)
  })
})

const unreachable = await postgresUnreachable()

/** The reference server on each store, and a way to count rows of a user's in its database. */
const STORES = [
  {
    name: 'sqlite',
    skip: null as string | null,
    async open() {
      const server = await startServer()
      const count = async (table: string, userId: string) => {
        const db = new Database(server.dbPath, { readonly: true })
        try {
          const column = table === 'auth_users' ? 'id' : 'user_id'
          return (db.prepare(`select count(*) as n from ${table} where ${column} = ?`).get(userId) as { n: number }).n
        } finally {
          db.close()
        }
      }
      return { server, count, close: async () => void (await server.stop()) }
    },
  },
  {
    name: 'postgres',
    skip: unreachable,
    async open() {
      const db = await freshPostgresSchema()
      const server = await startServer({ env: { DATABASE_URL: db.url }, startTimeoutMs: 20_000 })
      const count = async (table: string, userId: string) => {
        const column = table === 'auth_users' ? 'id' : 'user_id'
        const rows = await db.query<{ n: string }>(`select count(*) as n from ${table} where ${column} = $1`, [userId])
        return Number(rows[0]?.n)
      }
      return {
        server,
        count,
        close: async () => {
          await server.stop()
          await db.drop()
        },
      }
    },
  },
]

describe.each(STORES)('deleting an account on $name', ({ skip, open }) => {
  it.skipIf(skip !== null)('takes the todos with it in one step; its tokens get 401; others keep theirs', async () => {
    const { server: srv, count, close } = await open()
    try {
      const ada = await signup(srv.base)
      const bob = await signup(srv.base, 'Bob')
      for (const title of ['one', 'two']) await request(srv.base, 'POST', '/todos', { token: ada.token, body: { title } })
      await request(srv.base, 'POST', '/todos', { token: bob.token, body: { title: 'bob' } })
      const wrong = await request(srv.base, 'POST', '/auth/delete-account', {
        token: ada.token,
        body: { currentPassword: 'certainly not the password' },
      })
      expect(wrong.status).toBe(400)
      expect(await count('todos', ada.userId)).toBe(2)
      const deleted = await request(srv.base, 'POST', '/auth/delete-account', {
        token: ada.token,
        body: { currentPassword: ada.password },
      })
      expect(deleted.status).toBe(204)
      expect((await request(srv.base, 'GET', '/todos', { token: ada.token })).status).toBe(401)
      expect((await request(srv.base, 'POST', '/auth/refresh', { cookie: ada.refreshCookie })).status).toBe(401)
      expect(await count('todos', ada.userId)).toBe(0)
      expect(await count('auth_users', ada.userId)).toBe(0)
      expect(await count('auth_sessions', ada.userId)).toBe(0)
      expect(await count('todos', bob.userId)).toBe(1)
    } finally {
      await close()
    }
  })
})
