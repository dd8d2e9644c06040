/**
 * An address typed in full width, as Japanese and Chinese input methods produce it, is the same
 * address as its ASCII form on every endpoint that takes an email, on both stores; what is not one
 * address after normalising is refused (docs/reference/conventions.md#emails).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { AuthMail } from '../notify.js'

const ASCII = 'ada@example.com'
const WIDE = 'ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ'
const WIDE_UPPER = 'ＡＤＡ＠ＥＸＡＭＰＬＥ．ＣＯＭ'

// Each is a single address only when written in ASCII punctuation; typed in full width, it
// normalises to something that is not one address, and is refused as that would be.
const NOT_ONE_ADDRESS = [
  '＂e@a.com＂＠v.com',
  'ａ＠ｖ．ｃｏｍ，ｂ＠ｘ．ｃｏｍ',
  'ａ＠ｖ．ｃｏｍ；ｂ＠ｘ．ｃｏｍ',
  'Ａｄａ ＜ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ＞',
  'ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ\nBcc: b@x.com',
  'ａｄａ＠＠ｅｘａｍｐｌｅ．ｃｏｍ',
]

describe.each(STORES)('full-width emails on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const make = (more: Parameters<typeof harness>[0] = {}) => harness({ store: opened.store, ...more })
  const mailsTo = (h: ReturnType<typeof make>, kind: AuthMail['kind']) =>
    h.allMails.filter((m) => m.kind === kind).map((m) => m.to)

  it.skipIf(skip !== null)('signup stores the ASCII form; either form again is 409', async () => {
    const h = make()
    const wide = await h.signup(WIDE)
    expect(wide.user.email).toBe(ASCII)
    for (const email of [ASCII, WIDE_UPPER]) {
      const res = await h.request('POST', '/auth/signup', { json: { name: 'Squatter', email, password: PASSWORD } })
      expect(res.status, email).toBe(409)
    }
    expect(await opened.count('auth_users')).toBe(1)
  })

  it.skipIf(skip !== null)('signup in full width is 409 when the ASCII form has an account', async () => {
    const h = make()
    await h.signup(ASCII)
    const res = await h.request('POST', '/auth/signup', { json: { name: 'Wide', email: WIDE, password: PASSWORD } })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:email-taken' })
    expect(await opened.count('auth_users')).toBe(1)
  })

  it.skipIf(skip !== null)('login in full width signs in to the ASCII account and counts on its email limit', async () => {
    const h = make()
    const ada = await h.signup(ASCII)
    const res = await h.login(WIDE_UPPER)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(ada.user.id)
    // Ten wrong passwords typed in full width spend the email's ten: the ASCII form is refused too.
    for (let i = 0; i < 9; i++) expect((await h.login(WIDE, 'wrong password here', `198.51.100.${i}`)).status).toBe(401)
    expect((await h.login(ASCII, PASSWORD, '198.51.100.99')).status).toBe(429)
  })

  it.skipIf(skip !== null)('forgot-password in full width mails the account, at its stored address', async () => {
    const h = make()
    await h.signup(ASCII)
    const res = await h.request('POST', '/auth/forgot-password', { json: { email: WIDE } })
    expect(res.status).toBe(202)
    await h.auth.settled()
    expect(mailsTo(h, 'reset-password')).toEqual([ASCII])
    const { token } = await h.mailOf('reset-password', ASCII)
    const reset = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'a new password for ada' } })
    expect(reset.status).toBe(204)
    expect((await h.login(WIDE, 'a new password for ada')).status).toBe(200)
  })

  it.skipIf(skip !== null)('email sign-in in full width mails the account at its stored address and signs it in', async () => {
    const h = make()
    const ada = await h.signup(ASCII)
    const res = await h.request('POST', '/auth/email-sign-in', { json: { email: WIDE_UPPER } })
    expect(res.status).toBe(202)
    const { token } = await h.mailOf('sign-in', ASCII)
    expect(mailsTo(h, 'sign-in')).toEqual([ASCII])
    const verified = await h.request('POST', '/auth/email-sign-in/verify', { json: { token } })
    expect(verified.status).toBe(200)
    expect(((await verified.json()) as { user: { id: string } }).user.id).toBe(ada.user.id)
  })

  it.skipIf(skip !== null)(
    'refuses, after normalising, what is not one address: 400 naming the field, nothing mailed or stored',
    async () => {
      const h = make({ emailSignIn: { signUp: true } })
      await h.signup(ASCII)
      const requests = (email: string) =>
        [
          ['/auth/signup', { name: 'Wide', email, password: PASSWORD }],
          ['/auth/login', { email, password: PASSWORD }],
          ['/auth/forgot-password', { email }],
          ['/auth/email-sign-in', { email }],
        ] as const
      for (const email of NOT_ONE_ADDRESS) {
        for (const [path, json] of requests(email)) {
          const res = await h.request('POST', path, { json })
          expect(res.status, `${path} ${JSON.stringify(email)}`).toBe(400)
          expect(await res.json()).toMatchObject({ errors: [{ path: 'email', code: 'invalid_email' }] })
        }
      }
      await h.auth.settled()
      expect(h.allMails.filter((m) => m.kind !== 'verify-email')).toEqual([])
      expect(await opened.count('auth_users')).toBe(1)
    },
  )
})
