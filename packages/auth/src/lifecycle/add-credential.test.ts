/**
 * The mailbox proof before a credential that outlives a reset is added (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox), and the
 * end of an account with a second factor, on both stores: an unverified account cannot set up
 * two-factor (403, nothing written); a verified one gets a 6-digit code by mail that enable needs
 * as `emailCode` (wrong, used, expired → 400; the fifth wrong one kills it; a wrong TOTP code
 * leaves it usable); a password thief without the mailbox cannot turn two-factor on. Deleting a
 * two-factor account needs a current code, and every deletion mails `account-deleted`.
 */
import * as OTPAuth from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

type H = ReturnType<typeof harness>
type Json = Record<string, unknown>

const STEP_MS = 30_000
const ADA = 'ada@example.com'

describe.each(STORES)('the mailbox proof for a new credential, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)
  // The per-user limits out of the way: the tries are the point here.
  const setupHarness = () => harness({ store: opened.store, rateLimit: { user: { max: 1000, windowSeconds: 900 } } })

  /** Ada signed up (verified unless told otherwise), and a poster of her two-factor routes. */
  const adaIn = async (h: H, { verified = true } = {}) => {
    const ada = await h.signup(ADA)
    if (verified) await h.verifyEmail(ADA)
    const post = (path: string, body: Json) => h.request('POST', `/auth/two-factor/${path}`, { json: body, headers: ada.bearer })
    return { ...ada, post }
  }
  /** Sets up two-factor; answers the TOTP code generator. */
  const setUp = async (h: H, post: (path: string, body: Json) => Response | Promise<Response>) => {
    const res = await post('setup', { currentPassword: PASSWORD })
    expect(res.status).toBe(200)
    const { uri } = (await res.json()) as { uri: string }
    const totp = OTPAuth.URI.parse(uri)
    return (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * STEP_MS })
  }
  /** Another 6-digit code than `code`. */
  const not = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

  run('an unverified account cannot set up two-factor: 403 email-unverified, nothing written or mailed', async () => {
    const h = setupHarness()
    const { post } = await adaIn(h, { verified: false })
    const res = await post('setup', { currentPassword: PASSWORD })
    expect(res.status).toBe(403)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:email-unverified', status: 403 })
    expect(await opened.count('auth_two_factors')).toBe(0)
    expect(await opened.count('auth_add_credential_codes')).toBe(0)
    await h.auth.settled()
    expect(h.allMails.map((m) => m.kind)).not.toContain('add-credential')
    expect((await post('enable', { code: '123456', emailCode: '123456' })).status).toBe(409)
  })

  run('the unverified address is the 403 also when the body is wrong: 403 comes before 400 and 429', async () => {
    const h = harness({
      store: opened.store,
      rateLimit: { user: { max: 2, windowSeconds: 900 } },
      passkeys: { rpId: 'localhost', rpName: 'Latchkey test', origins: ['http://localhost:3000'] },
    })
    const ada = await adaIn(h, { verified: false })
    const tries: [string, Json | string][] = [
      ['/auth/two-factor/setup', {}],
      ['/auth/two-factor/setup', { currentPassword: 5 }],
      ['/auth/two-factor/setup', '{"currentPassword":'],
      ['/auth/passkeys/register/options', { extra: true }],
      ['/auth/passkeys/register', {}],
      ['/auth/passkeys/register', { response: { id: 'x' } }],
      // Past the per-user limit of 2 by now: still the 403.
      ['/auth/two-factor/setup', { currentPassword: PASSWORD }],
    ]
    for (const [path, body] of tries) {
      const res = await h.request('POST', path, {
        ...(typeof body === 'string'
          ? { body, headers: { ...ada.bearer, 'Content-Type': 'application/json' } }
          : { json: body, headers: ada.bearer }),
      })
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(403)
      expect(await res.json()).toMatchObject({ code: 'email_unverified' })
    }
    expect(await opened.count('auth_two_factors')).toBe(0)
    expect(await opened.count('auth_add_credential_codes')).toBe(0)
  })

  run('setup mails a 6-digit code for two-factor to the account, stored only as a hash', async () => {
    const h = setupHarness()
    const { post } = await adaIn(h)
    await setUp(h, post)
    const mail = await h.mailOf('add-credential', ADA)
    expect(mail).toEqual({ kind: 'add-credential', to: ADA, code: expect.stringMatching(/^[0-9]{6}$/), credential: 'two-factor' })
    const rows = await opened.rows('auth_add_credential_codes')
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(mail.code)
    // Never in an event or a log line.
    expect(JSON.stringify([h.events, h.logs])).not.toContain(mail.code)
  })

  run('enable needs the mailed code: missing, wrong or from an earlier setup → 400; the newest one works', async () => {
    const h = setupHarness()
    const { post } = await adaIn(h)
    let code = await setUp(h, post)
    const first = await h.emailCode()
    expect((await post('enable', { code: code() })).status).toBe(400)
    code = await setUp(h, post)
    const second = await h.emailCode()
    for (const emailCode of [first === second ? not(first) : first, not(second), '12345', 'abcdef']) {
      const res = await post('enable', { code: code(), emailCode })
      expect(res.status, emailCode).toBe(400)
      expect(await res.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'emailCode' })] })
    }
    expect((await post('enable', { code: code(), emailCode: second })).status).toBe(200)
    expect((await h.login(ADA)).status).toBe(202)
  })

  run('a wrong TOTP code leaves the mailed code usable; the fifth wrong mailed code kills it', async () => {
    const h = setupHarness()
    const ada = await adaIn(h)
    const { post } = ada
    let code = await setUp(h, post)
    let emailCode = await h.emailCode()
    for (let i = 0; i < 6; i++) expect((await post('enable', { code: not(code()), emailCode })).status).toBe(400)
    for (let i = 0; i < 4; i++) expect((await post('enable', { code: code(), emailCode: not(emailCode) })).status).toBe(400)
    expect((await post('enable', { code: code(), emailCode })).status).toBe(200)

    await post('disable', { currentPassword: PASSWORD, code: code(1) })
    h.clock.advance(2 * STEP_MS)
    code = await setUp(h, post)
    emailCode = await h.emailCode()
    for (let i = 0; i < 5; i++) expect((await post('enable', { code: code(), emailCode: not(emailCode) })).status).toBe(400)
    expect((await post('enable', { code: code(), emailCode })).status).toBe(400)
    expect(await (await h.request('GET', '/auth/two-factor', { headers: ada.bearer })).json()).toMatchObject({ enabled: false })
  })

  run('the mailed code lives ten minutes', async () => {
    const h = setupHarness()
    const { post } = await adaIn(h)
    const code = await setUp(h, post)
    const emailCode = await h.emailCode()
    h.clock.advance(600_000)
    expect((await post('enable', { code: code(), emailCode })).status).toBe(400)
  })

  run('of 20 parallel enables with one mailed code, one succeeds', async () => {
    const h = setupHarness()
    const { post } = await adaIn(h)
    const code = await setUp(h, post)
    const emailCode = await h.emailCode()
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('enable', { code: code(), emailCode })))
    expect(answers.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1)
    expect(await opened.count('auth_add_credential_codes')).toBe(0)
  })

  run('a password thief on a verified account cannot turn two-factor on without the mailbox', async () => {
    const h = setupHarness()
    await adaIn(h)
    // The thief signs in with the stolen password from elsewhere.
    const login = await h.login(ADA, PASSWORD, '198.51.100.66')
    const { accessToken } = (await login.json()) as { accessToken: string }
    const thief = (path: string, body: Json) =>
      h.request('POST', `/auth/two-factor/${path}`, { json: body, headers: { Authorization: `Bearer ${accessToken}` } })
    const code = await setUp(h, thief)
    // The code went to Ada's mailbox only; the thief guesses.
    const mailed = await h.emailCode()
    for (let i = 0; i < 5; i++) expect((await thief('enable', { code: code(), emailCode: not(mailed) })).status).toBe(400)
    expect((await thief('enable', { code: code(), emailCode: mailed })).status).toBe(400)
    expect(
      await (await h.request('GET', '/auth/two-factor', { headers: { Authorization: `Bearer ${accessToken}` } })).json(),
    ).toMatchObject({
      enabled: false,
    })
    // Ada's reset then signs the thief out, and her login needs no second factor.
    await h.request('POST', '/auth/forgot-password', { json: { email: ADA } })
    const { token } = await h.mailOf('reset-password', ADA)
    const newPassword = 'violet harbour kettle 42'
    expect((await h.request('POST', '/auth/reset-password', { json: { token, newPassword } })).status).toBe(204)
    expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(401)
    expect((await h.login(ADA, newPassword)).status).toBe(200)
  })
})

describe.each(STORES)('deleting an account, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)

  /** Ada with two-factor on: her bearer, a code generator and her recovery codes. */
  const withTwoFactor = async (h: H) => {
    const ada = await h.signup(ADA)
    await h.verifyEmail(ADA)
    const setup = await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: ada.bearer })
    const totp = OTPAuth.URI.parse(((await setup.json()) as { uri: string }).uri)
    const code = (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * STEP_MS })
    const emailCode = await h.emailCode()
    const enable = await h.request('POST', '/auth/two-factor/enable', { json: { code: code(), emailCode }, headers: ada.bearer })
    const { recoveryCodes } = (await enable.json()) as { recoveryCodes: string[] }
    h.clock.advance(STEP_MS)
    const del = (body: Json) => h.request('POST', '/auth/delete-account', { json: body, headers: ada.bearer })
    return { ...ada, code, recoveryCodes, del }
  }

  run('mails account-deleted to the address the account had', async () => {
    const h = harness({ store: opened.store })
    const ada = await h.signup(ADA)
    const res = await h.request('POST', '/auth/delete-account', { json: { currentPassword: PASSWORD }, headers: ada.bearer })
    expect(res.status).toBe(204)
    expect(await h.mailOf('account-deleted', ADA)).toEqual({ kind: 'account-deleted', to: ADA })
  })

  run('with two-factor on: the password alone, or with a wrong or used code, is 400 and deletes nothing', async () => {
    const h = harness({ store: opened.store })
    const ada = await withTwoFactor(h)
    const missing = await ada.del({ currentPassword: PASSWORD })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'code', code: 'required' })] })
    expect((await ada.del({ currentPassword: PASSWORD, code: ada.code(5) })).status).toBe(400)
    expect((await ada.del({ currentPassword: PASSWORD, code: 'zzzz-zzzz-zzzz' })).status).toBe(400)
    // A right code with a wrong password spends nothing: the code still works afterwards.
    expect((await ada.del({ currentPassword: 'not the password at all', code: ada.code() })).status).toBe(400)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(200)
    expect(await opened.count('auth_users')).toBe(1)
    await h.auth.settled()
    expect(h.allMails.map((m) => m.kind)).not.toContain('account-deleted')

    expect((await ada.del({ currentPassword: PASSWORD, code: ada.code() })).status).toBe(204)
    expect(await opened.count('auth_users')).toBe(0)
    expect(await h.mailOf('account-deleted', ADA)).toMatchObject({ to: ADA })
  })

  run('a recovery code deletes it too, and its notice says what it was used for', async () => {
    const h = harness({ store: opened.store })
    const ada = await withTwoFactor(h)
    expect((await ada.del({ currentPassword: PASSWORD, code: ada.recoveryCodes[0] })).status).toBe(204)
    expect(await h.mailOf('recovery-code-used', ADA)).toMatchObject({ usedFor: 'delete-account' })
    expect(await h.mailOf('account-deleted', ADA)).toMatchObject({ to: ADA })
  })

  run('a recovery code spent to turn two-factor off says so in its notice', async () => {
    const h = harness({ store: opened.store })
    const ada = await withTwoFactor(h)
    const res = await h.request('POST', '/auth/two-factor/disable', {
      json: { currentPassword: PASSWORD, code: ada.recoveryCodes[1] },
      headers: ada.bearer,
    })
    expect(res.status).toBe(204)
    expect(await h.mailOf('recovery-code-used', ADA)).toMatchObject({ usedFor: 'disable-two-factor' })
  })
})
