/**
 * Sessions and password reset against a production-mode server that mails over real SMTP:
 * signup → todos → login → refresh (cookie) → logout, and forgot → mail → reset → old sessions
 * refused → new password. Also: nothing secret ever reaches the server's output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cookieFrom, type RunningServer, request, signup, startServerWithMail, type startSmtp, type TodoJson } from './support.js'

const PUBLIC_URL = 'https://todo.example.test'

let server: RunningServer
let smtp: Awaited<ReturnType<typeof startSmtp>>
/** Everything secret the tests handled; none may appear in the server's output. */
const secrets = new Set<string>()

const remember = (...values: (string | undefined)[]) => {
  for (const v of values) if (v) secrets.add(v)
}

beforeAll(async () => {
  ;({ server, smtp } = await startServerWithMail({
    env: { NODE_ENV: 'production', PUBLIC_URL, MAIL_FROM: 'Latchkey Test <noreply@example.test>' },
  }))
})

afterAll(async () => {
  await server?.stop()
  await smtp?.close()
})

const login = async (email: string, password: string) => {
  const reply = await request(server.base, 'POST', '/auth/login', { body: { email, password } })
  const cookie = cookieFrom(reply, 'refresh_token')
  remember(password, (reply.body as { accessToken?: string } | null)?.accessToken, cookie?.split('=')[1])
  return { reply, token: (reply.body as { accessToken?: string }).accessToken ?? '', cookie: cookie ?? '' }
}

describe('a session from signup to logout', () => {
  it('signs up, uses todos, logs in with a cookie, refreshes, and logs out', async () => {
    const ada = await signup(server.base, 'Ada')
    remember(ada.password, ada.token, ada.refreshCookie.split('=')[1])

    const created = await request(server.base, 'POST', '/todos', { token: ada.token, body: { title: 'first' } })
    expect(created.status).toBe(201)
    const me = await request(server.base, 'GET', '/auth/me', { token: ada.token })
    expect(me.body).toMatchObject({ id: ada.userId, email: ada.email, name: 'Ada' })

    const session = await login(ada.email, ada.password)
    expect(session.reply.status).toBe(200)
    // Production: a Secure, host-only, HttpOnly, SameSite=Strict cookie scoped to /auth.
    const setCookie = session.reply.headers.getSetCookie().join('\n')
    expect(session.cookie).toMatch(/^__Secure-refresh_token=/)
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/Secure/)
    expect(setCookie).toMatch(/SameSite=Strict/)
    expect(setCookie).toMatch(/Path=\/auth/)
    expect(session.reply.headers.get('cache-control')).toBe('no-store')

    const refreshed = await request(server.base, 'POST', '/auth/refresh', { cookie: session.cookie })
    expect(refreshed.status).toBe(200)
    const next = {
      token: (refreshed.body as { accessToken: string }).accessToken,
      cookie: cookieFrom(refreshed, 'refresh_token') ?? '',
    }
    remember(next.token, next.cookie.split('=')[1])
    expect(next.cookie).not.toBe(session.cookie)
    expect(next.token).not.toBe(session.token)
    const listed = await request(server.base, 'GET', '/todos', { token: next.token })
    expect((listed.body as TodoJson[]).map((t) => t.title)).toEqual(['first'])

    // The rotated-away value is refused.
    expect((await request(server.base, 'POST', '/auth/refresh', { cookie: session.cookie })).status).toBe(401)

    const out = await request(server.base, 'POST', '/auth/logout', { token: next.token })
    expect(out.status).toBe(204)
    expect((await request(server.base, 'GET', '/todos', { token: next.token })).status).toBe(401)
    expect((await request(server.base, 'POST', '/auth/refresh', { cookie: next.cookie })).status).toBe(401)
    // Signup's own session is separate and still alive.
    expect((await request(server.base, 'GET', '/todos', { token: ada.token })).status).toBe(200)
  })

  it('answers a wrong password and an unknown email with the same status and body', async () => {
    const bob = await signup(server.base, 'Bob')
    remember(bob.password, bob.token)
    const wrong = await login(bob.email, 'not the password at all')
    const unknown = await login('nobody-here@example.com', 'not the password at all')
    expect(wrong.reply.status).toBe(401)
    expect(unknown.reply.status).toBe(401)
    expect(wrong.reply.text).toBe(unknown.reply.text)
  })
})

describe('password reset over SMTP', () => {
  it('mails a PUBLIC_URL link to the stored address; the token resets the password once and ends every session', async () => {
    const carol = await signup(server.base, 'Carol')
    const other = await login(carol.email, carol.password)
    remember(carol.password, carol.token)

    const before = smtp.mails.length
    // Headers that a link builder must never trust.
    const forgot = await request(server.base, 'POST', '/auth/forgot-password', {
      body: { email: `  ${carol.email.toUpperCase()} ` },
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    })
    expect(forgot.status).toBe(202)
    const mail = await smtp.waitFor(carol.email, before)
    expect(mail.text).toMatch(/^From: Latchkey Test <noreply@example\.test>/m)
    const link = /https?:\/\/\S+/.exec(mail.text)?.[0] ?? ''
    expect(link.startsWith(`${PUBLIC_URL}/reset-password?token=`)).toBe(true)
    const token = new URL(link).searchParams.get('token') ?? ''
    expect(token.length).toBeGreaterThanOrEqual(20)
    remember(token)

    // The link's page, on this server.
    const page = await request(server.base, 'GET', `/reset-password?token=${encodeURIComponent(token)}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)

    const newPassword = 'violet harbour seventeen kites'
    remember(newPassword)
    const reset = await request(server.base, 'POST', '/auth/reset-password', { body: { token, newPassword } })
    expect(reset.status).toBe(204)

    // Every session of the account is gone: access tokens and refresh cookies alike.
    expect((await request(server.base, 'GET', '/auth/me', { token: carol.token })).status).toBe(401)
    expect((await request(server.base, 'GET', '/auth/me', { token: other.token })).status).toBe(401)
    expect((await request(server.base, 'POST', '/auth/refresh', { cookie: other.cookie })).status).toBe(401)
    expect((await request(server.base, 'POST', '/auth/refresh', { cookie: carol.refreshCookie })).status).toBe(401)

    // Single use.
    const again = await request(server.base, 'POST', '/auth/reset-password', {
      body: { token, newPassword: 'another fine passphrase' },
    })
    expect(again.status).toBe(400)

    expect((await login(carol.email, carol.password)).reply.status).toBe(401)
    const fresh = await login(carol.email, newPassword)
    expect(fresh.reply.status).toBe(200)
    expect((await request(server.base, 'GET', '/auth/me', { token: fresh.token })).status).toBe(200)
  })

  it('sends no mail for an unknown email, with the same answer', async () => {
    const known = await signup(server.base, 'Dan')
    remember(known.password, known.token)
    const before = smtp.mails.length
    const unknown = await request(server.base, 'POST', '/auth/forgot-password', { body: { email: 'ghost@example.com' } })
    const existing = await request(server.base, 'POST', '/auth/forgot-password', { body: { email: known.email } })
    expect(unknown.status).toBe(existing.status)
    expect(unknown.text).toBe(existing.text)
    await smtp.waitFor(known.email, before)
    expect(smtp.mails.slice(before).some((m) => m.to.includes('ghost@example.com'))).toBe(false)
  })
})

describe('logging', () => {
  it('logs method, path and status, and never a token, a password, a cookie or a query string', async () => {
    const eve = await signup(server.base, 'Eve')
    remember(eve.password, eve.token, eve.refreshCookie.split('=')[1])
    const byQuery = await request(server.base, 'GET', `/todos?limit=1&access_token=${eve.token}`)
    expect(byQuery.status).toBe(200)
    await request(server.base, 'GET', `/reset-password?token=not-a-real-token-${eve.token.slice(-12)}`)
    await new Promise((r) => setTimeout(r, 100))

    const output = server.stdout() + server.stderr()
    expect(output).toMatch(/^GET \/todos 200 \d+ms$/m)
    expect(output).toMatch(/^POST \/auth\/signup 201 \d+ms$/m)
    expect(output).not.toContain('access_token')
    expect(output).not.toContain('?')
    expect(secrets.size).toBeGreaterThanOrEqual(3)
    for (const secret of secrets) expect(output, 'a secret reached the log').not.toContain(secret)
    expect(output).not.toContain(eve.token.slice(-12))
  })
})
