/**
 * Two-step scenarios of the third review (SECURITY.md, "A factor must not lock the owner out"),
 * against the real server in production with mail over SMTP, on each store:
 *
 * - "register first, then the owner arrives": a squatter signs up with the owner's address and
 *   cannot turn two-factor on (403 email-unverified); the owner's reset, through the mail the
 *   squatter cannot read, kills the squatter's password, sessions and refresh cookies, and the
 *   owner is in without a second factor in the way.
 * - "register first, the owner confirms": the owner presses the verification link the squatter's
 *   signup mailed, without the squatter's session or password; that removes the squatter's
 *   password and ends its sessions (200 passwordRemoved), and the owner signs in by email alone.
 * - a thief with a stolen password on a verified account cannot turn two-factor on without the
 *   code mailed to the owner; guessing kills the code at the fifth wrong try.
 */
import * as OTPAuth from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cookieFrom, type Reply, type RunningServer, request, startServerWithMail, type startSmtp } from '../support.js'
import { ATTACK_STORES, type AttackStore, type DbView } from './db-view.js'
import { freshIp, strongPassword } from './helpers.js'

describe.each(ATTACK_STORES)('the mailbox proof against a squatter and a thief, on $name', (store: AttackStore) => {
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let view: DbView
  let target: Awaited<ReturnType<AttackStore['prepare']>> | undefined

  beforeAll(async () => {
    if (store.skip !== null) return
    target = await store.prepare()
    ;({ server, smtp } = await startServerWithMail({ env: { ...target.env, NODE_ENV: 'production', TRUST_PROXY: 'true' } }))
    view = target.view(server)
  })
  afterAll(async () => {
    await view?.close()
    await server?.stop()
    await smtp?.close()
    await target?.drop()
  })
  const run = it.skipIf(store.skip !== null)

  const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
    request(server.base, method, path, { ...options, headers: { 'x-forwarded-for': freshIp(), ...options.headers } })
  const ownerAddress = () => `owner-${freshIp().replaceAll('.', '')}@example.com`
  /** The token of the newest mail of `kind` to `to` that arrived after `after` mails. */
  const tokenFromMail = async (to: string, kind: string, after = 0) => {
    const mail = await smtp.waitFor(to, after, 5_000, kind)
    return decodeURIComponent(/token=(\S+)/.exec(mail.text)?.[1] ?? '')
  }
  const codeFromMail = async (to: string, after: number) => {
    const mail = await smtp.waitFor(to, after, 5_000, 'add-credential')
    return /^ {4}([0-9]{6})\r?$/m.exec(mail.text)?.[1] ?? ''
  }
  /** A signed-in party: its access token and refresh cookie. */
  const party = (reply: Reply) => ({
    token: (reply.body as { accessToken: string }).accessToken,
    cookie: cookieFrom(reply, 'refresh_token') ?? '',
  })
  const not = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')
  const sessionRows = async (email: string) =>
    (
      await view.query<{ n: number | string }>(
        'select count(*) as n from auth_sessions s join auth_users u on u.id = s.user_id where u.email = ?',
        email,
      )
    )[0]?.n
  const factorRows = async (email: string) =>
    (
      await view.query<{ n: number | string }>(
        'select count(*) as n from auth_two_factors f join auth_users u on u.id = f.user_id where u.email = ?',
        email,
      )
    )[0]?.n

  /** The owner's reset through the mailbox; answers the new password. */
  const ownerResets = async (email: string) => {
    const before = smtp.mails.length
    expect((await call('POST', '/auth/forgot-password', { body: { email } })).status).toBe(202)
    const token = await tokenFromMail(email, 'reset-password', before)
    const newPassword = strongPassword()
    expect((await call('POST', '/auth/reset-password', { body: { token, newPassword } })).status).toBe(204)
    return newPassword
  }

  /** Every credential the squatter or thief held is dead; the owner signs in without a challenge. */
  const ownerAloneIn = async (email: string, stolen: string, parties: { token: string; cookie: string }[], password: string) => {
    expect((await call('POST', '/auth/login', { body: { email, password: stolen } })).status).toBe(401)
    for (const p of parties) {
      expect((await call('GET', '/auth/me', { token: p.token })).status).toBe(401)
      expect((await call('POST', '/auth/refresh', { cookie: p.cookie })).status).toBe(401)
    }
    const owner = await call('POST', '/auth/login', { body: { email, password } })
    expect(owner.status).toBe(200)
    expect((await call('GET', '/auth/me', { token: party(owner).token })).body).toMatchObject({ email, emailVerified: true })
    return party(owner)
  }

  run('register first, then the owner arrives: the squatter cannot add a factor, and the reset ends the squatter', async () => {
    const email = ownerAddress()
    const squatterPassword = strongPassword()
    const signup = await call('POST', '/auth/signup', { body: { name: 'Squatter', email, password: squatterPassword } })
    expect(signup.status).toBe(201)
    const second = await call('POST', '/auth/login', { body: { email, password: squatterPassword } })
    const squatter = [party(signup), party(second)]

    const setup = await call('POST', '/auth/two-factor/setup', {
      token: squatter[0]?.token,
      body: { currentPassword: squatterPassword },
    })
    expect(setup.status).toBe(403)
    expect(setup.body).toMatchObject({ type: 'urn:latchkey:problem:email-unverified', status: 403 })
    expect(Number(await factorRows(email))).toBe(0)
    expect(smtp.mails.filter((m) => m.to.includes(email) && m.kind === 'add-credential')).toEqual([])

    // The owner: the address is taken, so the owner resets through the mailbox.
    expect((await call('POST', '/auth/signup', { body: { name: 'Owner', email, password: strongPassword() } })).status).toBe(409)
    const password = await ownerResets(email)
    const owner = await ownerAloneIn(email, squatterPassword, squatter, password)
    // Verified by the reset: the owner may add a factor now.
    const own = await call('POST', '/auth/two-factor/setup', { token: owner.token, body: { currentPassword: password } })
    expect(own.status).toBe(200)
  })

  run('register first, the owner presses "Confirm your email address": the squatter keeps nothing', async () => {
    const email = ownerAddress()
    const squatterPassword = strongPassword()
    const signup = await call('POST', '/auth/signup', { body: { name: 'Squatter', email, password: squatterPassword } })
    expect(signup.status).toBe(201)
    const second = await call('POST', '/auth/login', { body: { email, password: squatterPassword } })
    const squatter = [party(signup), party(second)]
    // The verification link of the squatter's signup went to the owner, who presses it from a
    // browser that holds no session of the account and does not know its password.
    const verify = await tokenFromMail(email, 'verify-email')
    const pressed = await call('POST', '/auth/verify-email', { body: { token: verify } })
    expect(pressed.status).toBe(200)
    expect(pressed.body).toEqual({ passwordRemoved: true })
    // Nothing of the squatter's works any more: not the sessions, not the password.
    const squatterOut = async () => {
      expect((await call('POST', '/auth/login', { body: { email, password: squatterPassword } })).status).toBe(401)
      for (const p of squatter) {
        expect((await call('GET', '/auth/me', { token: p.token })).status).toBe(401)
        expect((await call('POST', '/auth/refresh', { cookie: p.cookie })).status).toBe(401)
      }
    }
    await squatterOut()
    expect(Number(await sessionRows(email))).toBe(0)

    // The owner signs in by email; the squatter is still out.
    const before = smtp.mails.length
    expect((await call('POST', '/auth/email-sign-in', { body: { email } })).status).toBe(202)
    const link = await tokenFromMail(email, 'sign-in', before)
    const owner = await call('POST', '/auth/email-sign-in/verify', { body: { token: link } })
    expect(owner.status).toBe(200)
    expect((await call('GET', '/auth/me', { token: party(owner).token })).body).toMatchObject({ email, emailVerified: true })
    await squatterOut()
    expect(Number(await sessionRows(email))).toBe(1)
  })

  run('a thief with the password of a verified account cannot turn two-factor on without the mailbox', async () => {
    const email = ownerAddress()
    const stolen = strongPassword()
    const signup = await call('POST', '/auth/signup', { body: { name: 'Owner', email, password: stolen } })
    expect(signup.status).toBe(201)
    const verify = await tokenFromMail(email, 'verify-email')
    // The owner confirms while signed in, so the password stays (and a thief can still steal it).
    expect((await call('POST', '/auth/verify-email', { token: party(signup).token, body: { token: verify } })).status).toBe(204)

    const thief = party(await call('POST', '/auth/login', { body: { email, password: stolen } }))
    const before = smtp.mails.length
    const setup = await call('POST', '/auth/two-factor/setup', { token: thief.token, body: { currentPassword: stolen } })
    expect(setup.status).toBe(200)
    const totp = OTPAuth.URI.parse((setup.body as { uri: string }).uri)
    const enable = (emailCode?: string) =>
      call('POST', '/auth/two-factor/enable', {
        token: thief.token,
        body: emailCode === undefined ? { code: totp.generate() } : { code: totp.generate(), emailCode },
      })
    // Without the code, and guessing it: 400 each; the fifth wrong guess kills the code.
    expect((await enable()).status).toBe(400)
    const mailed = await codeFromMail(email, before)
    for (let i = 0; i < 5; i++) expect((await enable(not(mailed))).status).toBe(400)
    // Even the right code, had the thief got it now, no longer works.
    expect((await enable(mailed)).status).toBe(400)
    expect((await call('GET', '/auth/two-factor', { token: thief.token })).body).toMatchObject({ enabled: false })

    const password = await ownerResets(email)
    await ownerAloneIn(email, stolen, [thief], password)
  })
})
