/**
 * Test harness: a real SQLite database (in memory: each test its own), the library mounted on a Hono app, a frozen clock, and
 * captured mails and events. Everything goes through `app.request()`, the public surface.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { onTestFinished } from 'vitest'
import type { NoFields } from '../src/domain.js'
import { problemErrorHandler, problemNotFound } from '../src/http/index.js'
import { type AuthEvent, type AuthMail, type AuthOptions, createAuth, type ResetMail, type UserRecord } from '../src/index.js'
import { migrateSqlite, openSqlite, sqliteCounts, sqliteStore } from '../src/sqlite/index.js'
import { fastHasher } from '../src/testing/index.js'

export const T0 = new Date('2026-11-21T10:00:00.000Z')
export const SECRET = 'test-secret-that-is-long-enough-0123456789'
export const ENCRYPTION_KEY = 'test-encryption-key-long-enough-ABCDEFGHIJ'
export const PASSWORD = 'correct horse battery staple'

export interface RequestInit {
  json?: unknown
  body?: string
  headers?: Record<string, string>
  /** Client IP, sent as X-Forwarded-For (the harness trusts one proxy). */
  ip?: string
}

export const harness = <Scope extends string = never>(
  overrides: Partial<AuthOptions<UserRecord, 'admin' | 'owner' | 'broken', NoFields, Scope>> = {},
) => {
  const db = openSqlite(':memory:')
  migrateSqlite(db)
  const store = sqliteStore(db)
  onTestFinished(() => {
    db.close()
  })

  let now = T0.getTime()
  const clock = {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms
    },
  }
  /** Reset mails only, as the tests of Part I read them. */
  const mails: ResetMail[] = []
  /** Every mail of every kind, in the order the hook was called. */
  const allMails: AuthMail[] = []
  const events: AuthEvent[] = []
  const logs: string[] = []
  const auth = createAuth({
    secret: SECRET,
    encryptionKeys: ENCRYPTION_KEY,
    store,
    sendMail: (mail) => {
      allMails.push(mail)
      if (mail.kind === 'reset-password') mails.push(mail)
    },
    onEvent: (event) => {
      events.push(event)
    },
    hasher: fastHasher(),
    now: clock.now,
    trustProxy: true,
    log: (m) => logs.push(m),
    publicUrl: 'http://app.test',
    policies: {
      admin: (user) => user.raw.role === 'admin',
      owner: (user, c) => c.req.param('id') === user.id,
      broken: () => {
        throw new Error('policy exploded')
      },
    },
    ...overrides,
  })

  const app = new OpenAPIHono()
  app.onError(problemErrorHandler((m) => logs.push(m)))
  app.notFound(problemNotFound)
  app.route('/auth', auth.routes)
  app.get('/private', auth.guard(true), (c) => c.json({ id: c.get('user').id, role: c.get('user').raw.role }))
  app.post('/private', auth.guard(true), (c) => c.json({ ok: true }))
  app.get('/admin', auth.guard('admin'), (c) => c.json({ admin: c.get('user').email }))
  app.get('/users/:id', auth.guard('owner'), (c) => c.json({ id: c.get('user').id }))
  app.get('/broken', auth.guard('broken'), (c) => c.json({}))

  const request = (method: string, path: string, init: RequestInit = {}) => {
    const headers: Record<string, string> = { 'X-Forwarded-For': init.ip ?? '203.0.113.7', ...init.headers }
    let body: string | undefined = init.body
    if (init.json !== undefined) {
      body = JSON.stringify(init.json)
      headers['Content-Type'] ??= 'application/json'
    }
    return app.request(path, { method, headers, body })
  }

  const signup = async (email = 'ada@example.com', password = PASSWORD, name = 'Ada') => {
    const res = await request('POST', '/auth/signup', { json: { name, email, password } })
    if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${await res.text()}`)
    const body = (await res.json()) as { accessToken: string; user: { id: string; email: string } }
    return {
      ...body,
      refresh: refreshCookie(res) as string,
      /** The browser's device cookie, as a `Cookie` header value. */
      device: `device=${deviceCookie(res)}`,
      bearer: { Authorization: `Bearer ${body.accessToken}` },
    }
  }

  const login = async (email = 'ada@example.com', password = PASSWORD, ip?: string) => {
    const res = await request('POST', '/auth/login', { json: { email, password }, ...(ip ? { ip } : {}) })
    return res
  }

  /** The newest mail of `kind` sent to `to`, once the hooks have run. */
  const mailOf = async <K extends AuthMail['kind']>(kind: K, to: string) => {
    await auth.settled()
    const mail = allMails.findLast((m): m is Extract<AuthMail, { kind: K }> => m.kind === kind && m.to === to)
    if (!mail) throw new Error(`no ${kind} mail to ${to}`)
    return mail
  }

  /**
   * Redeems the newest verification mail sent to `email`: the account proves its mailbox, and
   * the password's holder keeps it (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox).
   */
  const verifyEmail = async (email = 'ada@example.com', password = PASSWORD) => {
    const { token } = await mailOf('verify-email', email)
    const res = await request('POST', '/auth/verify-email', { json: { token, password } })
    if (res.status !== 204) throw new Error(`verify-email failed: ${res.status} ${await res.text()}`)
  }

  /** The code of the newest add-credential mail sent to `email` (mailed by two-factor setup). */
  const emailCode = async (email = 'ada@example.com') => (await mailOf('add-credential', email)).code

  return {
    app,
    auth,
    db,
    store,
    clock,
    mails,
    allMails,
    events,
    logs,
    request,
    signup,
    login,
    mailOf,
    verifyEmail,
    emailCode,
    counts: () => sqliteCounts(db),
  }
}

/** The value of the refresh cookie a response sets, `''` when it clears it, `undefined` when untouched. */
export const refreshCookie = (res: Response): string | undefined => {
  for (const line of res.headers.getSetCookie()) {
    const m = /^(?:__Secure-)?refresh_token=([^;]*)/.exec(line)
    if (m) return m[1]
  }
  return undefined
}

/** The value of the device cookie a response sets, `undefined` when it sets none. */
export const deviceCookie = (res: Response): string | undefined => {
  for (const line of res.headers.getSetCookie()) {
    const m = /^(?:__Host-)?device=([^;]*)/.exec(line)
    if (m) return m[1]
  }
  return undefined
}

export const cookieHeader = (value: string) => ({ Cookie: `refresh_token=${value}` })
