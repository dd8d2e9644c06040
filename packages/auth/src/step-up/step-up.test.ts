/**
 * Step-up over HTTP, on both stores (docs/guide/step-up.md): the last proof a session records and its
 * tokens carry (`auth_time`, `amr`), which a refresh never moves and `POST /auth/reauth` does;
 * routes with `fresh`, alone and with a policy; and the sensitive endpoints that take a fresh
 * session instead of `currentPassword`. The clock is frozen; codes come from `otpauth`.
 */
import { decodeJwt } from 'jose'
import * as OTPAuth from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD, refreshCookie, T0 } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

type H = ReturnType<typeof harness>
type Json = Record<string, unknown>

const STEP_MS = 30_000
const seconds = (date: Date) => Math.floor(date.getTime() / 1000)
const claims = (token: string) => decodeJwt(token) as { auth_time?: number; amr?: string[]; iat: number; sid: string }
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })
const challengeOf = (maxAge: number) => `Bearer error="insufficient_user_authentication", max_age=${maxAge}`

/** The app's own routes guarded with `fresh`: alone, and with a policy. */
const withFreshRoutes = (h: H) => {
  h.app.get('/fresh', h.auth.guard(true, { fresh: 300 }), (c) =>
    c.json({ authenticatedAt: c.var.authenticatedAt.toISOString(), amr: c.var.amr }),
  )
  h.app.get('/admin/fresh', h.auth.guard('admin', { fresh: 60 }), (c) => c.json({ ok: true }))
  return h
}

const expectReauthenticationRequired = async (res: Response, maxAge: number) => {
  expect(res.status).toBe(401)
  expect(res.headers.get('www-authenticate')).toBe(challengeOf(maxAge))
  expect(res.headers.get('content-type')).toBe('application/problem+json')
  expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:reauthentication-required', status: 401, maxAge })
}

/**
 * Signs up, proves the mailbox and turns two-factor on (with the mailed code); `code(steps)` is the
 * code `steps` steps from the frozen clock.
 */
const withTwoFactor = async (h: H, email = 'ada@example.com') => {
  const user = await h.signup(email)
  await h.verifyEmail(email)
  const setup = await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: user.bearer })
  expect(setup.status).toBe(200)
  const totp = OTPAuth.URI.parse(((await setup.json()) as { uri: string }).uri) as OTPAuth.TOTP
  const code = (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * STEP_MS })
  const enable = await h.request('POST', '/auth/two-factor/enable', {
    json: { code: code(), emailCode: await h.emailCode(email) },
    headers: user.bearer,
  })
  expect(enable.status).toBe(200)
  const { recoveryCodes } = (await enable.json()) as { recoveryCodes: string[] }
  h.clock.advance(STEP_MS)
  return { ...user, code, recoveryCodes }
}

describe.each(STORES)('step-up on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const setup = (overrides: Parameters<typeof harness>[0] = {}) => withFreshRoutes(harness({ store: opened.store, ...overrides }))
  const run = it.skipIf(skip !== null)
  const reauth = (h: H, token: string, json: Json) => h.request('POST', '/auth/reauth', { headers: bearer(token), json })

  run('auth_time and amr stay fixed across refreshes and move with a re-authentication; the cookie is left alone', async () => {
    const h = setup()
    const ada = await h.signup()
    expect(claims(ada.accessToken)).toMatchObject({ auth_time: seconds(T0), amr: ['pwd'] })

    let cookie = ada.refresh
    for (let i = 1; i <= 3; i++) {
      h.clock.advance(20 * 60_000)
      const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(cookie) })
      expect(res.status).toBe(200)
      cookie = refreshCookie(res) as string
      const token = ((await res.json()) as { accessToken: string }).accessToken
      expect(claims(token)).toMatchObject({ auth_time: seconds(T0), amr: ['pwd'], iat: seconds(h.clock.now()) })
    }

    const last = await h.request('POST', '/auth/refresh', { headers: cookieHeader(cookie) })
    cookie = refreshCookie(last) as string
    const token = ((await last.json()) as { accessToken: string }).accessToken
    const res = await reauth(h, token, { password: PASSWORD })
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie()).toEqual([])
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as { accessToken: string; tokenType: string; expiresIn: number; user: Json }
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, user: { email: 'ada@example.com' } })
    const after = claims(body.accessToken)
    expect(after).toMatchObject({ auth_time: seconds(h.clock.now()), amr: ['pwd'], sid: claims(ada.accessToken).sid })

    // The cookie from before the re-authentication still refreshes, and the proof it now carries is the new one.
    h.clock.advance(60_000)
    const refreshed = await h.request('POST', '/auth/refresh', { headers: cookieHeader(cookie) })
    expect(refreshed.status).toBe(200)
    expect(claims(((await refreshed.json()) as { accessToken: string }).accessToken).auth_time).toBe(after.auth_time)

    await h.auth.settled()
    const event = h.events.find((e) => e.type === 'reauthenticated')
    expect(event).toMatchObject({ type: 'reauthenticated', userId: ada.user.id, sessionId: after.sid, amr: ['pwd'] })
  })

  run(
    'a fresh route: 200 up to its age, then 401 with the RFC 9470 challenge; a re-authentication freshens every token',
    async () => {
      const h = setup()
      const ada = await h.signup()
      const first = await h.request('GET', '/fresh', { headers: ada.bearer })
      expect(first.status).toBe(200)
      expect(await first.json()).toEqual({ authenticatedAt: T0.toISOString(), amr: ['pwd'] })
      h.clock.advance(300_000)
      expect((await h.request('GET', '/fresh', { headers: ada.bearer })).status).toBe(200)
      h.clock.advance(1)
      await expectReauthenticationRequired(await h.request('GET', '/fresh', { headers: ada.bearer }), 300)
      // The same session's other routes are unaffected.
      expect((await h.request('GET', '/private', { headers: ada.bearer })).status).toBe(200)
      // A refresh proves nothing: its token is just as stale.
      const refreshed = await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })
      const token = ((await refreshed.json()) as { accessToken: string }).accessToken
      await expectReauthenticationRequired(await h.request('GET', '/fresh', { headers: bearer(token) }), 300)

      expect((await reauth(h, token, { password: PASSWORD })).status).toBe(200)
      // Judged from the session record: the token from before the re-authentication passes too.
      expect((await h.request('GET', '/fresh', { headers: bearer(token) })).status).toBe(200)
    },
  )

  run('a policy with fresh refuses for either reason: stale is 401 before the policy’s 403', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    const bob = await h.signup('bob@example.com')
    await opened.store.setRole('ada@example.com', 'admin')
    const get = (token: string) => h.request('GET', '/admin/fresh', { headers: bearer(token) })
    expect((await get(ada.accessToken)).status).toBe(200)
    expect((await get(bob.accessToken)).status).toBe(403)
    h.clock.advance(61_000)
    await expectReauthenticationRequired(await get(ada.accessToken), 60)
    // Stale and refused by the policy: the 401 comes first (401 before 403).
    await expectReauthenticationRequired(await get(bob.accessToken), 60)
    expect((await reauth(h, ada.accessToken, { password: PASSWORD })).status).toBe(200)
    expect((await reauth(h, bob.accessToken, { password: PASSWORD })).status).toBe(200)
    expect((await get(ada.accessToken)).status).toBe(200)
    expect((await get(bob.accessToken)).status).toBe(403)
    expect((await h.request('GET', '/admin/fresh')).status).toBe(401)
  })

  run('reauth: a wrong or missing password is 400 and freshens nothing; no token is 401', async () => {
    const h = setup()
    const ada = await h.signup()
    h.clock.advance(600_000)
    for (const json of [{ password: 'not my password' }, {}, { password: '' }, { password: 42 }]) {
      const res = await reauth(h, ada.accessToken, json)
      expect(res.status, JSON.stringify(json)).toBe(400)
      expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['password'])
    }
    await expectReauthenticationRequired(await h.request('GET', '/fresh', { headers: ada.bearer }), 300)
    expect((await h.request('POST', '/auth/reauth', { json: { password: PASSWORD } })).status).toBe(401)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'reauthentication.failed')).toHaveLength(2)
    expect(h.events.some((e) => e.type === 'reauthenticated')).toBe(false)
  })

  run('reauth is limited per user (10 per 15 minutes), even for the right password', async () => {
    const h = setup()
    const ada = await h.signup()
    for (let i = 0; i < 10; i++) expect((await reauth(h, ada.accessToken, { password: 'wrong password' })).status).toBe(400)
    const limited = await reauth(h, ada.accessToken, { password: PASSWORD })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another user, from the same address, is not limited.
    const bob = await h.signup('bob@example.com')
    expect((await reauth(h, bob.accessToken, { password: PASSWORD })).status).toBe(200)
    h.clock.advance(15 * 60_000)
    const token = ((await (await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })).json()) as Json)
      .accessToken as string
    expect((await reauth(h, token, { password: PASSWORD })).status).toBe(200)
  })

  run('reauth of a two-factor account needs a code: none or a wrong one is 400; a TOTP or recovery code is mfa', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    h.clock.advance(600_000)
    const missing = await reauth(h, ada.accessToken, { password: PASSWORD })
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as { errors: { path: string; code: string }[] }).errors).toEqual([
      expect.objectContaining({ path: 'code', code: 'code_required' }),
    ])
    expect((await reauth(h, ada.accessToken, { password: PASSWORD, code: '000000' })).status).toBe(400)
    // A wrong password with the right code spends nothing.
    expect((await reauth(h, ada.accessToken, { password: 'wrong password', code: ada.code() })).status).toBe(400)
    await expectReauthenticationRequired(await h.request('GET', '/fresh', { headers: ada.bearer }), 300)

    const ok = await reauth(h, ada.accessToken, { password: PASSWORD, code: ada.code() })
    expect(ok.status).toBe(200)
    expect(claims(((await ok.json()) as { accessToken: string }).accessToken)).toMatchObject({
      auth_time: seconds(h.clock.now()),
      amr: ['pwd', 'otp', 'mfa'],
    })
    expect(await (await h.request('GET', '/fresh', { headers: ada.bearer })).json()).toMatchObject({ amr: ['pwd', 'otp', 'mfa'] })
    // The code is spent for its window.
    expect((await reauth(h, ada.accessToken, { password: PASSWORD, code: ada.code() })).status).toBe(400)
    const recovery = await reauth(h, ada.accessToken, { password: PASSWORD, code: ada.recoveryCodes[0] })
    expect(recovery.status).toBe(200)
    await h.auth.settled()
    expect(h.events.some((e) => e.type === 'recovery_code.used')).toBe(true)
  })

  run('20 concurrent re-authentications with one TOTP code: exactly one succeeds', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const code = ada.code()
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => (await reauth(h, ada.accessToken, { password: PASSWORD, code })).status),
    )
    expect(answers.filter((s) => s === 200)).toHaveLength(1)
    expect(answers.filter((s) => s !== 200).every((s) => s === 400 || s === 429 || s === 503)).toBe(true)
  })

  run('a sign-in through the second factor is mfa from the start', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const login = await h.login()
    const { challenge } = (await login.json()) as { challenge: string }
    const res = await h.request('POST', '/auth/two-factor/verify', { json: { challenge, code: ada.code() } })
    expect(res.status).toBe(200)
    expect(claims(((await res.json()) as { accessToken: string }).accessToken)).toMatchObject({
      auth_time: seconds(h.clock.now()),
      amr: ['pwd', 'otp', 'mfa'],
    })
  })

  describe('the sensitive endpoints take a fresh session instead of currentPassword', () => {
    /** Each endpoint's body without `currentPassword`, for a user with (or without) two-factor. */
    const endpoints = (code: () => string) => [
      { path: '/auth/two-factor/recovery-codes', body: () => ({ code: code() }), ok: 200, twoFactor: true },
      { path: '/auth/two-factor/disable', body: () => ({ code: code() }), ok: 204, twoFactor: true },
      { path: '/auth/two-factor/setup', body: () => ({}), ok: 200, twoFactor: false },
      { path: '/auth/change-email', body: () => ({ newEmail: 'new@example.com' }), ok: 202, twoFactor: false },
      { path: '/auth/delete-account', body: () => ({}), ok: 204, twoFactor: false },
    ]

    run('neither a password nor a fresh session: 401 with the challenge, nothing changes and nothing counts', async () => {
      const h = setup()
      const ada = await withTwoFactor(h)
      h.clock.advance(301_000)
      for (const { path, body } of endpoints(ada.code)) {
        for (let i = 0; i < 11; i++) {
          const res = await h.request('POST', path, { headers: ada.bearer, json: body() })
          await expectReauthenticationRequired(res, 300)
        }
      }
      // Not even validation runs first: a 401 comes before a 400.
      await expectReauthenticationRequired(
        await h.request('POST', '/auth/change-email', { headers: ada.bearer, json: { newEmail: 'not an email' } }),
        300,
      )
      expect(h.allMails.filter((m) => m.kind === 'change-email')).toEqual([])
      expect(await (await h.request('GET', '/auth/two-factor', { headers: ada.bearer })).json()).toMatchObject({
        enabled: true,
        recoveryCodesLeft: 10,
      })
      // The password still works, and the 401s counted against no limit.
      const withPassword = await h.request('POST', '/auth/change-email', {
        headers: ada.bearer,
        json: { currentPassword: PASSWORD, newEmail: 'new@example.com' },
      })
      expect(withPassword.status).toBe(202)
    })

    run('a fresh session: each works without currentPassword; a wrong one given is still 400', async () => {
      const h = setup()
      const ada = await withTwoFactor(h)
      // Fresh again (enabling two-factor took a step of the clock, well inside 300 s).
      for (const { path, body, ok, twoFactor } of endpoints(ada.code)) {
        const status = (await (await h.request('GET', '/auth/two-factor', { headers: ada.bearer })).json()) as Json
        if (twoFactor) expect(status.enabled, path).toBe(true)
        const wrong = await h.request('POST', path, {
          headers: ada.bearer,
          json: { ...body(), currentPassword: 'wrong password' },
        })
        expect(wrong.status, path).toBe(400)
        const res = await h.request('POST', path, { headers: ada.bearer, json: body() })
        expect(res.status, `${path}: ${await res.clone().text()}`).toBe(ok)
        h.clock.advance(STEP_MS)
      }
      // The last one deleted the account.
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    })

    run('a stale session is 401 before an unverified address is 403; a fresh one gets the 403', async () => {
      const h = setup()
      const ada = await h.signup()
      h.clock.advance(301_000)
      await expectReauthenticationRequired(
        await h.request('POST', '/auth/two-factor/setup', { headers: ada.bearer, json: {} }),
        300,
      )
      expect((await reauth(h, ada.accessToken, { password: PASSWORD })).status).toBe(200)
      const unverified = await h.request('POST', '/auth/two-factor/setup', { headers: ada.bearer, json: {} })
      expect(unverified.status).toBe(403)
      expect(((await unverified.json()) as Json).type).toMatch(/email-unverified$/)
      await h.auth.settled()
      expect(h.allMails.filter((m) => m.kind === 'add-credential')).toEqual([])
    })

    run('a fresh session deletes a two-factor account only with a code', async () => {
      const h = setup()
      const ada = await withTwoFactor(h)
      const without = await h.request('POST', '/auth/delete-account', { headers: ada.bearer, json: {} })
      expect(without.status).toBe(400)
      expect(((await without.json()) as Json).errors).toEqual([expect.objectContaining({ path: 'code', code: 'required' })])
      await h.auth.settled()
      // Only a wrong code is a failed second factor (docs/reference/lifecycle.md#events).
      expect(h.events.filter((e) => e.type === 'two_factor.failed')).toEqual([])
      const res = await h.request('POST', '/auth/delete-account', { headers: ada.bearer, json: { code: ada.code() } })
      expect(res.status).toBe(204)
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    })

    run('freshAge is the window, and a re-authentication opens it again', async () => {
      const h = setup({ freshAge: 30 })
      const ada = await h.signup()
      h.clock.advance(31_000)
      await expectReauthenticationRequired(
        await h.request('POST', '/auth/change-email', { headers: ada.bearer, json: { newEmail: 'new@example.com' } }),
        30,
      )
      expect((await reauth(h, ada.accessToken, { password: PASSWORD })).status).toBe(200)
      const res = await h.request('POST', '/auth/change-email', { headers: ada.bearer, json: { newEmail: 'new@example.com' } })
      expect(res.status).toBe(202)
    })
  })
})

describe('fresh, documented and checked', () => {
  it('auth.route with fresh documents x-fresh and the 401 challenge, and enforces it', async () => {
    const { OpenAPIHono } = await import('@hono/zod-openapi')
    const h = harness()
    const app = new OpenAPIHono()
    app.route('/auth', h.auth.routes)
    app.openapi(
      h.auth.route({ method: 'post', path: '/danger', auth: 'admin', fresh: 120, responses: { 204: { description: 'done' } } }),
      (c) => c.body(null, 204),
    )
    const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })
    const danger = doc.paths?.['/danger']?.post as Record<string, unknown> & {
      responses: Record<string, { description: string }>
    }
    expect(danger['x-fresh']).toBe(120)
    expect(danger['x-policy']).toBe('admin')
    expect(danger.responses['401']?.description).toMatch(/reauthentication-required/)
    for (const path of ['change-email', 'delete-account', 'two-factor/setup', 'two-factor/disable', 'two-factor/recovery-codes'])
      expect(doc.paths?.[`/auth/${path}`]?.post, path).toHaveProperty('x-fresh', 300)
    expect(doc.paths?.['/auth/change-password']?.post).not.toHaveProperty('x-fresh')
    expect(doc.paths?.['/auth/reauth']?.post?.responses?.['200']).toBeDefined()

    const ada = await h.signup()
    await h.store.setRole('ada@example.com', 'admin')
    expect((await app.request('/danger', { method: 'POST', headers: ada.bearer })).status).toBe(204)
    h.clock.advance(121_000)
    const stale = await app.request('/danger', { method: 'POST', headers: ada.bearer })
    expect(stale.status).toBe(401)
    expect(stale.headers.get('www-authenticate')).toBe(challengeOf(120))
  })

  it('refuses a fresh that is not a whole number of seconds of at least 1, when the route is built', () => {
    const h = harness()
    for (const fresh of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => h.auth.guard(true, { fresh }), String(fresh)).toThrow(/fresh/)
    expect(() => harness({ freshAge: 0 })).toThrow(/freshAge/)
  })
})
