/**
 * The account lifecycle over HTTP (docs/reference/lifecycle.md), on both stores: verification, sessions,
 * email change, account deletion, the mails each step asks for and the events it reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { AuthMail } from '../notify.js'

type H = ReturnType<typeof harness>

/** The token of the newest mail of `kind` to `to`, once the work after the answer is done. */
const tokenOf = async (h: H, kind: 'verify-email' | 'change-email' | 'reset-password', to: string) => {
  await h.auth.settled()
  const mail = h.allMails.filter((m): m is Extract<AuthMail, { token: string }> => m.kind === kind && m.to === to).at(-1)
  if (!mail) throw new Error(`no ${kind} mail to ${to}`)
  return mail.token
}

const json = async (res: Response) => (await res.json()) as Record<string, unknown>

describe.each(STORES)('the account lifecycle on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const setup = () => harness({ store: opened.store })

  describe('email verification', () => {
    it.skipIf(skip !== null)('mails a token at signup; redeeming it once verifies the account', async () => {
      const h = setup()
      const ada = await h.signup()
      expect((await json(await h.request('GET', '/auth/me', { headers: ada.bearer }))).emailVerified).toBe(false)
      const token = await tokenOf(h, 'verify-email', 'ada@example.com')
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect((await h.request('POST', '/auth/verify-email', { json: { token }, headers: ada.bearer })).status).toBe(204)
      expect((await json(await h.request('GET', '/auth/me', { headers: ada.bearer }))).emailVerified).toBe(true)
      const again = await h.request('POST', '/auth/verify-email', { json: { token } })
      expect(again.status).toBe(400)
      expect(await json(again)).toMatchObject({ type: 'urn:latchkey:problem:invalid-email-token' })
    })

    it.skipIf(skip !== null)('answers one 400 for unknown, expired and wrong-kind tokens (a reset token included)', async () => {
      const h = setup()
      await h.signup()
      const verify = await tokenOf(h, 'verify-email', 'ada@example.com')
      await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
      const reset = await tokenOf(h, 'reset-password', 'ada@example.com')
      const bodies = new Set<string>()
      for (const token of [reset, 'x'.repeat(43), 'nope']) {
        const res = await h.request('POST', '/auth/verify-email', { json: { token } })
        expect(res.status).toBe(400)
        bodies.add(await res.text())
      }
      // The reset token was not spent by the attempt.
      const res = await h.request('POST', '/auth/reset-password', {
        json: { token: reset, newPassword: 'a fresh long passphrase' },
      })
      expect(res.status).toBe(204)
      h.clock.advance(24 * 60 * 60 * 1000)
      const late = await h.request('POST', '/auth/verify-email', { json: { token: verify } })
      expect(late.status).toBe(400)
      bodies.add(await late.text())
      expect(bodies.size).toBe(1)
    })

    it.skipIf(skip !== null)('of 20 concurrent redemptions of one token, exactly one answers 204', async () => {
      // The owner's limit out of the way (it counts these too): the race is the point here.
      const h = harness({ store: opened.store, rateLimit: { email: { max: 1000, windowSeconds: 900 } } })
      const ada = await h.signup()
      const token = await tokenOf(h, 'verify-email', 'ada@example.com')
      const answers = await Promise.all(
        Array.from(
          { length: 20 },
          async (_, i) =>
            (await h.request('POST', '/auth/verify-email', { json: { token }, headers: ada.bearer, ip: `198.51.100.${i}` }))
              .status,
        ),
      )
      expect(answers.filter((s) => s === 204)).toHaveLength(1)
      expect(answers.filter((s) => s === 400)).toHaveLength(19)
    })

    it.skipIf(skip !== null)('resends only to an unverified account; the newer token kills the older', async () => {
      const h = setup()
      const ada = await h.signup()
      const first = await tokenOf(h, 'verify-email', 'ada@example.com')
      const resend = await h.request('POST', '/auth/resend-verification', { headers: ada.bearer })
      expect(resend.status).toBe(202)
      expect(await json(resend)).toEqual({ message: expect.any(String) })
      const second = await tokenOf(h, 'verify-email', 'ada@example.com')
      expect(second).not.toBe(first)
      expect((await h.request('POST', '/auth/verify-email', { json: { token: first } })).status).toBe(400)
      expect((await h.request('POST', '/auth/verify-email', { json: { token: second }, headers: ada.bearer })).status).toBe(204)
      const mailsBefore = h.allMails.length
      expect((await h.request('POST', '/auth/resend-verification', { headers: ada.bearer })).status).toBe(202)
      await h.auth.settled()
      expect(h.allMails.length).toBe(mailsBefore)
      expect((await h.request('POST', '/auth/resend-verification')).status).toBe(401)
    })

    it.skipIf(skip !== null)('is also set by a password reset, which proved the mailbox', async () => {
      const h = setup()
      const ada = await h.signup()
      await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
      const token = await tokenOf(h, 'reset-password', 'ada@example.com')
      expect(
        (await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'a fresh long passphrase' } })).status,
      ).toBe(204)
      expect((await opened.store.findUserById(ada.user.id))?.user.emailVerified).toBe(true)
    })

    it.skipIf(skip !== null)('limits resending per account: the 11th in 15 minutes gets 429', async () => {
      const h = setup()
      const ada = await h.signup()
      for (let i = 0; i < 10; i++)
        expect((await h.request('POST', '/auth/resend-verification', { headers: ada.bearer, ip: `192.0.2.${i}` })).status).toBe(
          202,
        )
      const limited = await h.request('POST', '/auth/resend-verification', { headers: ada.bearer, ip: '192.0.2.99' })
      expect(limited.status).toBe(429)
      expect(limited.headers.get('ratelimit')).toMatch(/^"resend-verification-user";r=0;t=\d+$/)
    })
  })

  describe('sessions', () => {
    it.skipIf(skip !== null)(
      'lists live sessions with agent and address, newest use first, marking the current one',
      async () => {
        const h = setup()
        const ada = await h.signup()
        h.clock.advance(1000)
        const second = await h.request('POST', '/auth/login', {
          json: { email: 'ada@example.com', password: PASSWORD },
          ip: '198.51.100.20',
          headers: { 'User-Agent': `Agent/${'x'.repeat(300)}` },
        })
        const secondToken = ((await json(second)).accessToken as string) ?? ''
        const list = await h.request('GET', '/auth/sessions', { headers: { Authorization: `Bearer ${secondToken}` } })
        expect(list.status).toBe(200)
        const sessions = (await list.json()) as Record<string, unknown>[]
        expect(sessions).toHaveLength(2)
        expect(sessions[0]).toMatchObject({ current: true, ip: '198.51.100.20', userAgent: `Agent/${'x'.repeat(250)}` })
        expect(sessions[1]).toMatchObject({ current: false, ip: '203.0.113.7', userAgent: null })
        expect(sessions[0]?.lastUsedAt).toBe('2026-11-21T10:00:01.000Z')
        // The earlier of idle (30 days after last use) and absolute (90 days after sign-in).
        expect(sessions[1]?.expiresAt).toBe('2026-12-21T10:00:00.000Z')
        expect(Object.keys(sessions[0] ?? {}).sort()).toEqual([
          'createdAt',
          'current',
          'expiresAt',
          'id',
          'ip',
          'lastUsedAt',
          'userAgent',
        ])
        expect(JSON.stringify(sessions)).not.toContain(ada.refresh)
      },
    )

    it.skipIf(skip !== null)(
      "ends one session by id; another user's, an unknown or a malformed id is a 404 naming it",
      async () => {
        const h = setup()
        const ada = await h.signup()
        const adaList = (await (await h.request('GET', '/auth/sessions', { headers: ada.bearer })).json()) as { id: string }[]
        const login = await h.login()
        const other = (await json(login)).accessToken as string
        const bob = await h.signup('bob@example.com')
        const bobSession = (
          (await (await h.request('GET', '/auth/sessions', { headers: bob.bearer })).json()) as { id: string }[]
        )[0]
        for (const id of [bobSession?.id ?? '', '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
          const res = await h.request('DELETE', `/auth/sessions/${id}`, { headers: ada.bearer })
          expect(res.status).toBe(404)
          expect((await json(res)).detail).toContain(id)
        }
        // Text no store can hold (PostgreSQL refuses U+0000): still the 404, never a 500.
        for (const path of ['%00abc', `${encodeURIComponent(bobSession?.id ?? '')}%00`, 'a'.repeat(300)])
          expect((await h.request('DELETE', `/auth/sessions/${path}`, { headers: ada.bearer })).status, path).toBe(404)
        expect((await h.request('GET', '/auth/me', { headers: bob.bearer })).status).toBe(200)
        // Ada ends her first session from the second one: its token stops working at once.
        expect(
          (await h.request('DELETE', `/auth/sessions/${adaList[0]?.id}`, { headers: { Authorization: `Bearer ${other}` } }))
            .status,
        ).toBe(204)
        expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
        const refresh = await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })
        expect(refresh.status).toBe(401)
      },
    )

    it.skipIf(skip !== null)('ending the current session is a logout: the cookie is cleared', async () => {
      const h = setup()
      const ada = await h.signup()
      const [mine] = (await (await h.request('GET', '/auth/sessions', { headers: ada.bearer })).json()) as { id: string }[]
      const res = await h.request('DELETE', `/auth/sessions/${mine?.id}`, { headers: ada.bearer })
      expect(res.status).toBe(204)
      expect(res.headers.getSetCookie().join()).toMatch(/refresh_token=;.*Max-Age=0/)
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    })

    it.skipIf(skip !== null)('signs out everywhere else and keeps the current session', async () => {
      const h = setup()
      const ada = await h.signup()
      const others = [await h.login(), await h.login()]
      const current = (await json(others[1] as Response)).accessToken as string
      expect((await h.request('DELETE', '/auth/sessions', { headers: { Authorization: `Bearer ${current}` } })).status).toBe(204)
      expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${current}` } })).status).toBe(200)
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
      const list = (await (
        await h.request('GET', '/auth/sessions', { headers: { Authorization: `Bearer ${current}` } })
      ).json()) as unknown[]
      expect(list).toHaveLength(1)
    })
  })

  describe('changing the email', () => {
    const change = (h: H, bearer: Record<string, string>, newEmail: string, currentPassword = PASSWORD) =>
      h.request('POST', '/auth/change-email', { headers: bearer, json: { currentPassword, newEmail } })

    it.skipIf(skip !== null)('limits requests per new address too: accounts together cannot flood one mailbox', async () => {
      const h = setup()
      const accounts = [await h.signup('a@example.com'), await h.signup('b@example.com'), await h.signup('c@example.com')]
      const statuses: number[] = []
      for (let i = 0; i < 11; i++)
        statuses.push((await change(h, accounts[i % 3]!.bearer, i % 2 ? 'Victim@Example.com' : ' victim@example.com')).status)
      expect(statuses).toEqual([...Array(10).fill(202), 429])
      // Another address is another key.
      expect((await change(h, accounts[0]!.bearer, 'elsewhere@example.com')).status).toBe(202)
    })

    it.skipIf(skip !== null)(
      'mails the new address; confirming swaps it, ends every session and tells the old address',
      async () => {
        const h = setup()
        const ada = await h.signup()
        const res = await change(h, ada.bearer, '  Ada.New@Example.com ')
        expect(res.status).toBe(202)
        expect((await json(await h.request('GET', '/auth/me', { headers: ada.bearer }))).email).toBe('ada@example.com')
        const token = await tokenOf(h, 'change-email', 'ada.new@example.com')
        expect((await h.request('POST', '/auth/confirm-email', { json: { token } })).status).toBe(204)
        expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
        expect((await h.login('ada@example.com')).status).toBe(401)
        const login = await h.login('ada.new@example.com')
        expect(login.status).toBe(200)
        expect(((await json(login)).user as Record<string, unknown>).emailVerified).toBe(true)
        await h.auth.settled()
        // The login came from a browser without a device cookie: its new-sign-in notice went to the new address after it.
        expect(h.allMails.slice(-2)).toEqual([
          { kind: 'email-changed', to: 'ada@example.com', newEmail: 'ada.new@example.com' },
          expect.objectContaining({ kind: 'new-sign-in', to: 'ada.new@example.com' }),
        ])
        expect((await h.request('POST', '/auth/confirm-email', { json: { token } })).status).toBe(400)
      },
    )

    it.skipIf(skip !== null)('refuses a wrong password with 400 and a taken address with 409, mailing nothing', async () => {
      const h = setup()
      const ada = await h.signup()
      await h.signup('bob@example.com')
      await h.auth.settled()
      const before = h.allMails.length
      const wrong = await change(h, ada.bearer, 'new@example.com', 'not my password at all')
      expect(wrong.status).toBe(400)
      expect(await json(wrong)).toMatchObject({ errors: [{ path: 'currentPassword', code: 'wrong_password' }] })
      expect((await change(h, ada.bearer, 'BOB@example.com')).status).toBe(409)
      expect((await change(h, ada.bearer, 'ada@example.com')).status).toBe(400)
      await h.auth.settled()
      expect(h.allMails.length).toBe(before)
    })

    it.skipIf(skip !== null)('answers 409 at confirmation when the address was taken meanwhile; the token is spent', async () => {
      const h = setup()
      const ada = await h.signup()
      expect((await change(h, ada.bearer, 'wanted@example.com')).status).toBe(202)
      const token = await tokenOf(h, 'change-email', 'wanted@example.com')
      await h.signup('wanted@example.com')
      expect((await h.request('POST', '/auth/confirm-email', { json: { token } })).status).toBe(409)
      expect((await json(await h.request('GET', '/auth/me', { headers: ada.bearer }))).email).toBe('ada@example.com')
      expect((await h.request('POST', '/auth/confirm-email', { json: { token } })).status).toBe(400)
    })

    it.skipIf(skip !== null)("counts a redemption against the token owner's email, as reset-password", async () => {
      // One redemption per owner in the window, to see the key at work.
      const h = harness({ store: opened.store, rateLimit: { email: { max: 1, windowSeconds: 900 } } })
      const ada = await h.signup()
      expect((await change(h, ada.bearer, 'wanted@example.com')).status).toBe(202)
      const first = await tokenOf(h, 'change-email', 'wanted@example.com')
      await h.signup('wanted@example.com')
      expect((await h.request('POST', '/auth/confirm-email', { json: { token: first }, ip: '198.51.100.1' })).status).toBe(409)
      expect((await change(h, ada.bearer, 'second@example.com')).status).toBe(202)
      const second = await tokenOf(h, 'change-email', 'second@example.com')
      // From another address, with a live token: the owner's count refuses it, and nothing is spent.
      expect((await h.request('POST', '/auth/confirm-email', { json: { token: second }, ip: '198.51.100.2' })).status).toBe(429)
      // The event names the account the token belongs to (docs/reference/lifecycle.md#events: whenever it is known).
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'rate_limited')).toEqual([
        expect.objectContaining({ endpoint: 'confirm-email', userId: ada.user.id }),
      ])
      h.clock.advance(901_000)
      expect((await h.request('POST', '/auth/confirm-email', { json: { token: second }, ip: '198.51.100.2' })).status).toBe(204)
    })

    it.skipIf(skip !== null)('refuses a verification token at confirm-email and a change token at verify-email', async () => {
      const h = setup()
      const ada = await h.signup()
      const verify = await tokenOf(h, 'verify-email', 'ada@example.com')
      await change(h, ada.bearer, 'other@example.com')
      const changeToken = await tokenOf(h, 'change-email', 'other@example.com')
      expect((await h.request('POST', '/auth/confirm-email', { json: { token: verify } })).status).toBe(400)
      expect((await h.request('POST', '/auth/verify-email', { json: { token: changeToken } })).status).toBe(400)
      expect((await h.request('POST', '/auth/confirm-email', { json: { token: changeToken } })).status).toBe(204)
    })

    it.skipIf(skip !== null)('of 20 concurrent confirmations of one token, exactly one answers 204', async () => {
      // The owner's limit out of the way (it counts these too): the race is the point here.
      const h = harness({ store: opened.store, rateLimit: { email: { max: 1000, windowSeconds: 900 } } })
      const ada = await h.signup()
      await change(h, ada.bearer, 'race@example.com')
      const token = await tokenOf(h, 'change-email', 'race@example.com')
      const answers = await Promise.all(
        Array.from(
          { length: 20 },
          async (_, i) => (await h.request('POST', '/auth/confirm-email', { json: { token }, ip: `198.51.100.${i}` })).status,
        ),
      )
      expect(answers.filter((s) => s === 204)).toHaveLength(1)
      expect(answers.filter((s) => s === 400)).toHaveLength(19)
    })
  })

  describe('deleting the account', () => {
    it.skipIf(skip !== null)('with the password: the user, sessions and tokens go; its tokens and cookie get 401', async () => {
      const h = setup()
      const ada = await h.signup()
      const bob = await h.signup('bob@example.com')
      await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
      const reset = await tokenOf(h, 'reset-password', 'ada@example.com')
      const res = await h.request('POST', '/auth/delete-account', { headers: ada.bearer, json: { currentPassword: PASSWORD } })
      expect(res.status).toBe(204)
      expect(res.headers.getSetCookie().join()).toMatch(/refresh_token=;.*Max-Age=0/)
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })).status).toBe(401)
      expect(
        (await h.request('POST', '/auth/reset-password', { json: { token: reset, newPassword: 'a fresh long passphrase' } }))
          .status,
      ).toBe(400)
      expect((await h.login()).status).toBe(401)
      expect(await opened.store.findUserById(ada.user.id)).toBeNull()
      expect(await opened.count('auth_sessions')).toBe(1)
      expect((await h.request('GET', '/auth/me', { headers: bob.bearer })).status).toBe(200)
      // The address is free again.
      expect(
        (await h.request('POST', '/auth/signup', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD } })).status,
      ).toBe(201)
    })

    it.skipIf(skip !== null)('with a wrong password: 400 and nothing deleted', async () => {
      const h = setup()
      const ada = await h.signup()
      const res = await h.request('POST', '/auth/delete-account', {
        headers: ada.bearer,
        json: { currentPassword: 'certainly not the password' },
      })
      expect(res.status).toBe(400)
      expect(await json(res)).toMatchObject({ errors: [{ path: 'currentPassword', code: 'wrong_password' }] })
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(200)
      expect(await opened.store.findUserById(ada.user.id)).not.toBeNull()
    })
  })
})

describe('the order of errors (docs/reference/conventions.md#which-error-wins) on the lifecycle routes', () => {
  it('answers 413, then 415, then 401, then 429, then 400', async () => {
    const h = harness()
    const ada = await h.signup()
    const big = JSON.stringify({ token: 'x'.repeat(70_000) })
    expect(
      (await h.request('POST', '/auth/verify-email', { body: big, headers: { 'Content-Type': 'application/json' } })).status,
    ).toBe(413)
    expect(
      (await h.request('POST', '/auth/confirm-email', { body: 'token', headers: { 'Content-Type': 'text/plain' } })).status,
    ).toBe(415)
    for (const path of ['/auth/change-email', '/auth/delete-account', '/auth/resend-verification'])
      expect((await h.request('POST', path, { json: { nonsense: true } })).status).toBe(401)
    expect((await h.request('GET', '/auth/sessions')).status).toBe(401)
    expect((await h.request('DELETE', '/auth/sessions/anything')).status).toBe(401)
    for (let i = 0; i < 10; i++) {
      const wrong = await h.request('POST', '/auth/delete-account', {
        headers: ada.bearer,
        json: { currentPassword: `not it ${i}` },
        ip: `192.0.2.${i}`,
      })
      expect(wrong.status).toBe(400)
    }
    // Limited per user: even a malformed body now gets the 429, and so does the right password.
    expect((await h.request('POST', '/auth/delete-account', { headers: ada.bearer, json: {}, ip: '192.0.2.50' })).status).toBe(
      429,
    )
    const right = await h.request('POST', '/auth/delete-account', { headers: ada.bearer, json: { currentPassword: PASSWORD } })
    expect(right.status).toBe(429)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(200)
  })
})

describe('mails and events', () => {
  it('reports each step once, after it, with who and where, and never a secret', async () => {
    const h = harness()
    const ada = await h.signup()
    await h.login('ada@example.com', 'a wrong password here')
    await h.login('nobody@example.com')
    const login = await h.login()
    const second = (await json(login)).accessToken as string
    const verify = await tokenOf(h, 'verify-email', 'ada@example.com')
    await h.request('POST', '/auth/verify-email', { json: { token: verify }, headers: ada.bearer })
    await h.request('POST', '/auth/change-password', {
      headers: ada.bearer,
      json: { currentPassword: PASSWORD, newPassword: 'a second long passphrase' },
    })
    // Reuse of a rotated refresh value after the grace window.
    const rotated = await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })
    expect(rotated.status).toBe(200)
    h.clock.advance(11_000)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })).status).toBe(401)
    // The password change revoked the second session: its logout is a 401 and no event.
    expect((await h.request('POST', '/auth/logout', { headers: { Authorization: `Bearer ${second}` } })).status).toBe(401)
    const third = (await json(await h.login('ada@example.com', 'a second long passphrase'))).accessToken as string
    expect((await h.request('POST', '/auth/logout', { headers: { Authorization: `Bearer ${third}` } })).status).toBe(204)
    await h.auth.settled()

    expect(h.events.map((e) => e.type)).toEqual([
      'signup',
      'login.failed',
      'login.failed',
      'login.succeeded',
      // Each login sent no device cookie: a browser the account had not used.
      'login.new_device',
      'email.verified',
      'password.changed',
      'refresh.reuse_detected',
      'login.succeeded',
      'login.new_device',
      'logout',
    ])
    const [signup, failed, unknown] = h.events
    expect(signup).toEqual({
      type: 'signup',
      userId: ada.user.id,
      sessionId: expect.any(String),
      at: '2026-11-21T10:00:00.000Z',
      ip: '203.0.113.7',
    })
    expect(failed).toMatchObject({ type: 'login.failed', userId: ada.user.id })
    expect(unknown).not.toHaveProperty('userId')
    for (const event of h.events) expect(event.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const text = JSON.stringify(h.events)
    for (const secret of [PASSWORD, 'a second long passphrase', verify, ada.accessToken, ada.refresh])
      expect(text).not.toContain(secret)
    expect(text).not.toMatch(/\$fast\$|\$argon2/)

    expect(h.allMails.map((m) => m.kind)).toEqual(['verify-email', 'new-sign-in', 'password-changed', 'new-sign-in'])
    expect(h.allMails[2]).toEqual({ kind: 'password-changed', to: 'ada@example.com' })
  })

  it('reports a rate limit and a revoked session', async () => {
    const h = harness()
    const ada = await h.signup()
    await h.login()
    for (let i = 0; i <= 10; i++) await h.login('ada@example.com', 'wrong guess here', `192.0.2.${i}`)
    const listed = (await (await h.request('GET', '/auth/sessions', { headers: ada.bearer })).json()) as {
      id: string
      current: boolean
    }[]
    const other = listed.find((session) => !session.current)
    await h.request('DELETE', `/auth/sessions/${other?.id}`, { headers: ada.bearer })
    await h.auth.settled()
    // The signup's login counted too: the 10th wrong guess is the first refusal, one event each.
    expect(h.events.filter((e) => e.type === 'rate_limited')).toEqual(
      ['192.0.2.9', '192.0.2.10'].map((ip) => expect.objectContaining({ type: 'rate_limited', endpoint: 'login', ip })),
    )
    expect(h.events.at(-1)).toMatchObject({ type: 'session.revoked', userId: ada.user.id, sessionId: other?.id })
  })

  it('a mail or event hook that hangs changes no answer', async () => {
    const never = () => new Promise<void>(() => {})
    const h = harness({ sendMail: never, onEvent: never })
    const res = await h.request('POST', '/auth/signup', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD } })
    expect(res.status).toBe(201)
    expect((await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })).status).toBe(202)
    expect((await h.login()).status).toBe(200)
  })

  it('a mail or event hook that throws is logged by kind and name, never with its message', async () => {
    const h = harness({
      sendMail: () => {
        throw new Error('smtp down, token in message')
      },
      onEvent: () => {
        throw new Error('audit down, secret in message')
      },
    })
    expect(
      (await h.request('POST', '/auth/signup', { json: { name: 'Ada', email: 'ada@example.com', password: PASSWORD } })).status,
    ).toBe(201)
    await h.auth.settled()
    expect(h.logs).toContain('sendMail failed (verify-email): Error')
    expect(h.logs.some((l) => l.startsWith('onEvent (signup)'))).toBe(true)
    expect(h.logs.join('\n')).not.toMatch(/in message/)
  })
})
