/**
 * A stranger who knows only the address, against the real server in production with mail over
 * SMTP, on each store (docs/guide/account-protection.md): an account without a password (signed
 * up by email) is not locked out by a flood of email-sign-in and forgot-password requests, which
 * get 429 past the email's limit and never end the mail its known browser asked for; that browser
 * is counted per device (10 per 15 minutes); and a 6-digit code gets at most 10 tries per account
 * across its flows: past them every code, the right one too, gets the one 401 and no flow loses
 * a try, while the link still signs in.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cookieFrom, type RunningServer, request, startServerWithMail, type startSmtp } from '../support.js'
import { ATTACK_STORES, type AttackStore, type DbView } from './db-view.js'
import { freshIp, until } from './helpers.js'

const PUBLIC_URL = 'https://todo.example.test'

describe.each(ATTACK_STORES)('a stranger against sign-in by email on $name', (store: AttackStore) => {
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let view: DbView
  let target: Awaited<ReturnType<AttackStore['prepare']>> | undefined

  beforeAll(async () => {
    if (store.skip !== null) return
    target = await store.prepare()
    ;({ server, smtp } = await startServerWithMail({
      env: { ...target.env, NODE_ENV: 'production', TRUST_PROXY: 'true', PUBLIC_URL, EMAIL_SIGN_UP: 'true' },
    }))
    view = target.view(server)
  })
  afterAll(async () => {
    await view?.close()
    await server?.stop()
    await smtp?.close()
    await target?.drop()
  })
  const run = it.skipIf(store.skip !== null)

  /** From a fresh client address, with the browser's device cookie when given. */
  const call = (path: string, body: unknown, device?: string) =>
    request(server.base, 'POST', path, { body, headers: { 'x-forwarded-for': freshIp() }, ...(device ? { cookie: device } : {}) })
  /** Asks for a sign-in mail: the answer's flow, and the mail's link token and code. */
  const signInMail = async (email: string, device?: string) => {
    const before = smtp.mails.length
    const asked = await call('/auth/email-sign-in', { email }, device)
    expect(asked.status).toBe(202)
    const mail = await smtp.waitFor(email, before, 5_000, 'sign-in')
    const token = new RegExp(`${PUBLIC_URL}/sign-in\\?token=([A-Za-z0-9_-]+)`).exec(mail.text)?.[1] ?? ''
    const code = /code in the browser where you asked: ([0-9]{6})/.exec(mail.text)?.[1] ?? ''
    return { flow: (asked.body as { flow: string }).flow, token, code }
  }
  const verify = (body: { token: string } | { flow: string; code: string }) => call('/auth/email-sign-in/verify', body)
  const not = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')
  /** An account without a password, signed up by email: its address and its browser's device cookie. */
  const passwordless = async () => {
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`
    const signedUp = await verify({ token: (await signInMail(email)).token })
    expect(signedUp.status).toBe(200)
    const device = cookieFrom(signedUp, 'device')
    if (!device) throw new Error('no device cookie')
    return { email, device, userId: (signedUp.body as { user: { id: string } }).user.id }
  }

  run('a flood from elsewhere gets 429 past the email limit; the known browser asks, and its link and code work', async () => {
    const owner = await passwordless()
    const pending = await signInMail(owner.email, owner.device)
    const statuses: number[] = []
    for (const path of ['/auth/email-sign-in', '/auth/forgot-password'])
      for (let i = 0; i < 12; i++) statuses.push((await call(path, { email: owner.email })).status)
    // The sign-up mail, asked from the browser before it was known, was the email's first of 10.
    expect(statuses).toEqual([...Array(9).fill(202), 429, 429, 429, ...Array(10).fill(202), 429, 429])
    expect((await call('/auth/forgot-password', { email: owner.email }, owner.device)).status).toBe(202)
    // The mail the known browser asked for before the flood still signs in, by its code.
    expect((await verify({ flow: pending.flow, code: pending.code })).status).toBe(200)
    // Every mail the flood asked for has arrived (sign-up, pending, nine strangers'): the next is the browser's.
    const signInMails = () => smtp.mails.filter((m) => m.kind === 'sign-in' && m.to.includes(owner.email)).length
    await until(() => signInMails() === 11, 5_000, 'the flood mails')
    const again = await signInMail(owner.email, owner.device)
    expect((await verify({ token: again.token })).status).toBe(200)
  })

  run('the known browser is counted per device: 10 per 15 minutes, sparing the email', async () => {
    const owner = await passwordless()
    for (const path of ['/auth/email-sign-in', '/auth/forgot-password']) {
      for (let i = 0; i < 10; i++) expect((await call(path, { email: owner.email }, owner.device)).status).toBe(202)
      const limited = await call(path, { email: owner.email }, owner.device)
      expect(limited.status).toBe(429)
      expect(limited.headers.get('ratelimit')).toMatch(/-device";r=0;t=\d+$/)
      expect((await call(path, { email: owner.email })).status).toBe(202)
    }
  })

  run('past 10 codes per account across flows, every code gets the one 401 and no flow loses a try; links work', async () => {
    const owner = await passwordless()
    let last = { flow: '', token: '', code: '' }
    for (const tries of [4, 4, 2]) {
      last = await signInMail(owner.email)
      for (let i = 0; i < tries; i++) expect((await verify({ flow: last.flow, code: not(last.code) })).status).toBe(401)
    }
    const refused = [await verify({ flow: last.flow, code: not(last.code) }), await verify({ flow: last.flow, code: last.code })]
    for (const reply of refused) {
      expect(reply.status).toBe(401)
      expect(reply.headers.get('retry-after')).toBeNull()
    }
    expect(refused[1]?.text).toBe(refused[0]?.text)
    expect(refused[0]?.body).toMatchObject({ status: 401, code: 'invalid_sign_in' })
    // The flow's row counted the two wrong codes it was given, not the refused ones.
    const rows = await view.query<{ attempts: number | string }>(
      'select attempts from auth_email_sign_ins where user_id = ? and used_at is null',
      owner.userId,
    )
    expect(rows.map((r) => Number(r.attempts))).toEqual([2])
    expect((await verify({ token: last.token })).status).toBe(200)
  })
})
