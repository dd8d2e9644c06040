/**
 * Sign-in by email over HTTP (docs/reference/email-sign-in.md), on both stores: the one answer for
 * every address, the mail's link and code spent once (20 parallel POSTs → one session), a code on
 * another flow, the sixth try after five wrong, a new mail killing the last, sign-up by email,
 * the squatter who registered the address first, the two-factor 202, and addresses that must
 * never get a mail.
 */
import * as OTPAuth from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { AuthMail } from '../notify.js'

type H = ReturnType<typeof harness>
type SignIn = Extract<AuthMail, { kind: 'sign-in' }>
const MINUTE = 60_000

const start = async (h: H, email: string, ip?: string) => {
  const res = await h.request('POST', '/auth/email-sign-in', { json: { email }, ...(ip ? { ip } : {}) })
  const body = (await res.json()) as { message: string; flow: string }
  await h.auth.settled()
  return { res, body, flow: body.flow }
}
const signInMails = (h: H) => h.allMails.filter((m): m is SignIn => m.kind === 'sign-in')
const lastMail = (h: H) => {
  const mail = signInMails(h).at(-1)
  if (!mail) throw new Error('no sign-in mail')
  return mail
}
const verify = (h: H, body: { token: string } | { flow: string; code: string }, ip?: string) =>
  h.request('POST', '/auth/email-sign-in/verify', { json: body, ...(ip ? { ip } : {}) })
/** A 6-digit code that is not `code`. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

describe.each(STORES)('sign-in by email on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const make = (more: Parameters<typeof harness>[0] = {}) => harness({ store: opened.store, ...more })

  it.skipIf(skip !== null)('answers every address alike, and mails only an account, at its stored address', async () => {
    const h = make()
    await h.signup('ada@example.com')
    const known = await start(h, '  ADA@Example.com ')
    const unknown = await start(h, 'nobody@example.com')
    for (const { res, body } of [known, unknown]) {
      expect(res.status).toBe(202)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(Object.keys(body).sort()).toEqual(['flow', 'message'])
      expect(body.flow).toMatch(/^[A-Za-z0-9_-]{43}$/)
    }
    expect(known.body.message).toBe(unknown.body.message)
    expect(known.flow).not.toBe(unknown.flow)
    expect(signInMails(h)).toHaveLength(1)
    const mail = lastMail(h)
    expect(mail).toMatchObject({ kind: 'sign-in', to: 'ada@example.com', signUp: false })
    expect(mail.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(mail.code).toMatch(/^[0-9]{6}$/)
    // Nothing the mail carries is stored as it is.
    const stored = JSON.stringify(await opened.rows('auth_email_sign_ins'))
    for (const secret of [mail.token, known.flow, unknown.flow]) expect(stored).not.toContain(secret)
  })

  it.skipIf(skip !== null)('signs in once with the link; the code of the same mail is spent with it', async () => {
    const h = make()
    const ada = await h.signup('ada@example.com')
    const { flow } = await start(h, 'ada@example.com')
    const mail = lastMail(h)
    const res = await verify(h, { token: mail.token })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { accessToken: string; user: { id: string; emailVerified: boolean } }
    expect(body.user).toMatchObject({ id: ada.user.id, emailVerified: true })
    expect(refreshCookie(res)).toMatch(/\./)
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${body.accessToken}` } })).status).toBe(200)
    await h.auth.settled()
    expect(h.events.find((e) => e.type === 'login.succeeded')).toMatchObject({ method: 'email', userId: ada.user.id })

    const again = await verify(h, { token: mail.token })
    const byCode = await verify(h, { flow, code: mail.code })
    const unknownFlow = await verify(h, { flow: 'x'.repeat(43), code: mail.code })
    const texts = await Promise.all([again, byCode, unknownFlow].map((r) => r.text()))
    for (const r of [again, byCode, unknownFlow]) {
      expect(r.status).toBe(401)
      expect(r.headers.get('www-authenticate')).toBe('Bearer')
    }
    expect(new Set(texts).size).toBe(1)
    await h.auth.settled()
    expect(JSON.parse(texts[0] as string)).toMatchObject({ status: 401, type: 'urn:latchkey:problem:invalid-sign-in' })
    expect(h.events.filter((e) => e.type === 'login.failed').every((e) => 'method' in e && e.method === 'email')).toBe(true)
  })

  it.skipIf(skip !== null)('of 20 parallel POSTs of one link or one code, exactly one signs in', async () => {
    const h = make()
    await h.signup('ada@example.com')
    await start(h, 'ada@example.com')
    const byLink = await Promise.all(Array.from({ length: 20 }, () => verify(h, { token: lastMail(h).token })))
    expect(byLink.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(401)])
    const { flow } = await start(h, 'ada@example.com')
    const code = lastMail(h).code
    const byCode = await Promise.all(Array.from({ length: 20 }, () => verify(h, { flow, code })))
    expect(byCode.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(401)])
    // Two sign-ins, two sessions (the first proof of the unverified account ended the signup's).
    expect(await opened.count('auth_sessions')).toBe(2)
  })

  it.skipIf(skip !== null)('refuses a code on another flow, and the sixth try after five wrong codes', async () => {
    const h = make()
    await h.signup('ada@example.com')
    await h.signup('bob@example.com')
    const ada = await start(h, 'ada@example.com')
    const adaCode = lastMail(h).code
    const bob = await start(h, 'bob@example.com')
    const bobMail = lastMail(h)
    expect((await verify(h, { flow: bob.flow, code: adaCode })).status).toBe(401)
    // The other flow's code counted on bob's flow; four more wrong ones kill it.
    for (let i = 0; i < 4; i++) expect((await verify(h, { flow: bob.flow, code: wrong(bobMail.code) })).status).toBe(401)
    expect((await verify(h, { flow: bob.flow, code: bobMail.code })).status).toBe(401)
    expect((await verify(h, { token: bobMail.token })).status).toBe(401)
    // Ada's flow is untouched by all of that.
    expect((await verify(h, { flow: ada.flow, code: adaCode })).status).toBe(200)
  })

  it.skipIf(skip !== null)('the right code on the fifth try still works', async () => {
    const h = make()
    await h.signup('ada@example.com')
    const { flow } = await start(h, 'ada@example.com')
    const { code } = lastMail(h)
    for (let i = 0; i < 4; i++) expect((await verify(h, { flow, code: wrong(code) })).status).toBe(401)
    expect((await verify(h, { flow, code })).status).toBe(200)
  })

  it.skipIf(skip !== null)('a new mail kills the last one, and a mail dies after 15 minutes', async () => {
    const h = make()
    await h.signup('ada@example.com')
    const first = await start(h, 'ada@example.com')
    const firstMail = lastMail(h)
    const second = await start(h, 'ada@example.com')
    const secondMail = lastMail(h)
    expect((await verify(h, { token: firstMail.token })).status).toBe(401)
    expect((await verify(h, { flow: first.flow, code: firstMail.code })).status).toBe(401)
    h.clock.advance(15 * MINUTE)
    expect((await verify(h, { flow: second.flow, code: secondMail.code })).status).toBe(401)
    expect((await verify(h, { token: secondMail.token })).status).toBe(401)
  })

  it.skipIf(skip !== null)(
    'mails nothing to an unknown address; with signUp, creates the account when the mail is used',
    async () => {
      const off = make()
      await start(off, 'newcomer@example.com')
      expect(signInMails(off)).toHaveLength(0)

      const h = make({ emailSignIn: { signUp: true } })
      const { flow } = await start(h, 'Newcomer@Example.com')
      const mail = lastMail(h)
      expect(mail).toMatchObject({ to: 'newcomer@example.com', signUp: true })
      const res = await verify(h, { flow, code: mail.code })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { user: { email: string; name: string; emailVerified: boolean } }
      expect(body.user).toMatchObject({ email: 'newcomer@example.com', name: 'newcomer', emailVerified: true })
      await h.auth.settled()
      expect(h.events.find((e) => e.type === 'signup')).toBeDefined()
      // No password opens it: any password is the 401 of a wrong one, byte for byte.
      const none = await h.login('newcomer@example.com', PASSWORD)
      await h.signup('ada@example.com')
      const wrongPassword = await h.login('ada@example.com', 'not the password at all')
      expect(none.status).toBe(401)
      expect(await none.text()).toBe(await wrongPassword.text())
      // A second mail signs in to the same account.
      await start(h, 'newcomer@example.com')
      expect(lastMail(h).signUp).toBe(false)
      expect((await verify(h, { token: lastMail(h).token })).status).toBe(200)
    },
  )

  it.skipIf(skip !== null)(
    'the owner who signs in by email ends the password and sessions of whoever registered the address',
    async () => {
      const h = make()
      // The squatter registers the victim's address with a password of their own, and is signed in.
      const squatter = await h.signup('victim@corp.example', 'squatter password 1234')
      expect((await h.login('victim@corp.example', 'squatter password 1234')).status).toBe(200)
      // The victim asks for a mail and signs in with its code.
      const { flow } = await start(h, 'victim@corp.example')
      const res = await verify(h, { flow, code: lastMail(h).code })
      expect(res.status).toBe(200)
      const victim = (await res.json()) as { accessToken: string; user: { id: string } }
      expect(victim.user.id).toBe(squatter.user.id)
      // The squatter's password no longer opens the account: the ordinary 401.
      const byPassword = await h.login('victim@corp.example', 'squatter password 1234')
      expect(byPassword.status).toBe(401)
      expect(await byPassword.json()).toMatchObject({ type: 'urn:latchkey:problem:invalid-credentials' })
      // Their sessions are dead: the access token and the refresh cookie.
      expect((await h.request('GET', '/auth/me', { headers: squatter.bearer })).status).toBe(401)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(squatter.refresh) })).status).toBe(401)
      // The victim's session is the only one left.
      expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${victim.accessToken}` } })).status).toBe(
        200,
      )
      expect(await opened.count('auth_sessions')).toBe(1)
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'session.revoked')).toHaveLength(2)
      // A second sign-in by email of the now verified account ends nothing.
      await start(h, 'victim@corp.example')
      expect((await verify(h, { token: lastMail(h).token })).status).toBe(200)
      expect(await opened.count('auth_sessions')).toBe(2)
    },
  )

  it.skipIf(skip !== null)(
    'a verified account with a second factor gets the two-factor 202, and a code finishes it',
    async () => {
      const h = make()
      const user = await h.signup('ada@example.com')
      await h.auth.settled()
      const verifyMail = h.allMails.find((m) => m.kind === 'verify-email')
      if (verifyMail?.kind !== 'verify-email') throw new Error('no verification mail')
      const verified = await h.request('POST', '/auth/verify-email', { json: { token: verifyMail.token }, headers: user.bearer })
      expect(verified.status).toBe(204)
      const setup = await h.request('POST', '/auth/two-factor/setup', {
        json: { currentPassword: PASSWORD },
        headers: user.bearer,
      })
      const totp = OTPAuth.URI.parse(((await setup.json()) as { uri: string }).uri) as OTPAuth.TOTP
      const code = (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * 30_000 })
      const emailCode = await h.emailCode('ada@example.com')
      const enable = await h.request('POST', '/auth/two-factor/enable', {
        json: { code: code(), emailCode },
        headers: user.bearer,
      })
      expect(enable.status).toBe(200)
      h.clock.advance(30_000)

      const { flow } = await start(h, 'ada@example.com')
      const res = await verify(h, { flow, code: lastMail(h).code })
      expect(res.status).toBe(202)
      // No session yet: the device cookie alone, as on the password login's 202.
      expect(res.headers.getSetCookie().map((cookie) => cookie.split('=')[0])).toEqual(['device'])
      const challenge = (await res.json()) as { twoFactorRequired: true; challenge: string; expiresIn: number }
      expect(challenge).toMatchObject({ twoFactorRequired: true, expiresIn: 300 })
      const done = await h.request('POST', '/auth/two-factor/verify', { json: { challenge: challenge.challenge, code: code() } })
      expect(done.status).toBe(200)
    },
  )

  it.skipIf(skip !== null)('refuses addresses that could send a mail elsewhere with 400, and mails nothing', async () => {
    const h = make({ emailSignIn: { signUp: true } })
    await h.signup('victim@corp.com')
    for (const email of [
      '"e@a.com"@v.com',
      'a@v.com,b@x.com',
      'a@v.com, b@x.com',
      'a@v.com;b@x.com',
      // Typed in full width, an address is its ASCII form (full-width-email.test.ts); these are
      // refused for what they are once normalised: a list and a quoted local part.
      'victim＠corp．com，b＠x．com',
      '＂e@a.com＂＠v.com',
      'Victim <victim@corp.com>',
      'victim@corp.com\nBcc: b@x.com',
    ]) {
      const res = await h.request('POST', '/auth/email-sign-in', { json: { email } })
      expect(res.status, email).toBe(400)
      expect(await res.json()).toMatchObject({ errors: [{ path: 'email' }] })
    }
    await h.auth.settled()
    expect(signInMails(h)).toHaveLength(0)
    expect(await opened.count('auth_email_sign_ins')).toBe(0)
  })

  it.skipIf(skip !== null)('limits asking per address (100) and per email (10), and verifying per address (100)', async () => {
    const h = make()
    const ask = (email: string, ip: string) => h.request('POST', '/auth/email-sign-in', { json: { email }, ip })
    for (let i = 0; i < 10; i++) expect((await ask('ada@example.com', `198.51.100.${i}`)).status).toBe(202)
    expect((await ask('ADA@example.com', '198.51.100.99')).status).toBe(429)
    for (let i = 0; i < 100; i++) await ask(`u${i}@example.com`, '203.0.113.50')
    expect((await ask('other@example.com', '203.0.113.50')).status).toBe(429)
    await h.auth.settled()
    for (let i = 0; i < 100; i++) await verify(h, { token: `t${i}` }, '203.0.113.60')
    const limited = await verify(h, { token: 'x' }, '203.0.113.60')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
  })
})
