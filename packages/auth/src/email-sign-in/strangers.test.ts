/**
 * What a stranger who knows only the address can do to sign-in by email, on both stores
 * (docs/guide/account-protection.md): requests from browsers the account does not know count on
 * the email's limit and end only each other's mails, never the one mailed to a browser the
 * account knows, which counts per device instead; and at most 10 codes per account per 15
 * minutes are tried across its flows: past that every code gets the one 401 without being
 * tried (no flow loses a try), while links still work.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { AuthMail } from '../notify.js'

type H = ReturnType<typeof harness>
type SignIn = Extract<AuthMail, { kind: 'sign-in' }>
const MINUTE = 60_000
const EMAIL = 'ada@example.com'

const ask = async (h: H, path: '/auth/email-sign-in' | '/auth/forgot-password', ip: string, device?: string) => {
  const res = await h.request('POST', path, { json: { email: EMAIL }, ip, ...(device ? { headers: { Cookie: device } } : {}) })
  await h.auth.settled()
  return res
}
/** Asks for a sign-in mail: the answer's flow and the mail's link token and code. */
const signIn = async (h: H, ip: string, device?: string) => {
  const res = await ask(h, '/auth/email-sign-in', ip, device)
  expect(res.status).toBe(202)
  const { flow } = (await res.json()) as { flow: string }
  const mail = h.allMails.findLast((m): m is SignIn => m.kind === 'sign-in')
  if (!mail) throw new Error('no sign-in mail')
  return { flow, token: mail.token, code: mail.code }
}
const verify = (h: H, body: { token: string } | { flow: string; code: string }, ip = '192.0.2.200') =>
  h.request('POST', '/auth/email-sign-in/verify', { json: body, ip })
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

describe.each(STORES)('strangers and sign-in by email on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)(
    "a stranger's flood is refused past the email's limit and never ends the known browser's mail",
    async () => {
      const h = harness({ store: opened.store })
      const ada = await h.signup(EMAIL)
      const owner = await signIn(h, '198.51.100.1', ada.device)
      const statuses: number[] = []
      for (let i = 0; i < 12; i++) statuses.push((await ask(h, '/auth/email-sign-in', `192.0.2.${i + 1}`)).status)
      for (let i = 0; i < 12; i++) statuses.push((await ask(h, '/auth/forgot-password', `192.0.2.${i + 1}`)).status)
      const expected = [...Array(10).fill(202), 429, 429]
      expect(statuses).toEqual([...expected, ...expected])
      // The owner's known browser is counted apart, and the mail it asked for still works.
      expect((await ask(h, '/auth/forgot-password', '198.51.100.1', ada.device)).status).toBe(202)
      expect((await verify(h, { flow: owner.flow, code: owner.code })).status).toBe(200)
      const again = await signIn(h, '198.51.100.1', ada.device)
      expect((await verify(h, { token: again.token })).status).toBe(200)
    },
  )

  it.skipIf(skip !== null)('a known browser has its own limit of 10 per 15 minutes on each route', async () => {
    const h = harness({ store: opened.store })
    const ada = await h.signup(EMAIL)
    for (const path of ['/auth/email-sign-in', '/auth/forgot-password'] as const) {
      for (let i = 0; i < 10; i++) expect((await ask(h, path, `192.0.2.${i + 1}`, ada.device)).status).toBe(202)
      const limited = await ask(h, path, '192.0.2.99', ada.device)
      expect(limited.status).toBe(429)
      expect(limited.headers.get('ratelimit')).toMatch(/-device";r=0;t=\d+$/)
      // Its requests spared the email: another browser may still ask.
      expect((await ask(h, path, '192.0.2.98')).status).toBe(202)
    }
    h.clock.advance(15 * MINUTE)
    expect((await ask(h, '/auth/email-sign-in', '192.0.2.99', ada.device)).status).toBe(202)
  })

  it.skipIf(skip !== null)(
    'refuses every code past 10 per account across its flows with the one 401, spending no try; links still work',
    async () => {
      const h = harness({ store: opened.store })
      const ada = await h.signup(EMAIL)
      const tries = [4, 4, 2]
      let last = { flow: '', token: '', code: '' }
      // Flows asked 5 minutes apart: the last still lives when the codes' window (from the first) ends.
      for (const [n, count] of tries.entries()) {
        if (n > 0) h.clock.advance(5 * MINUTE)
        last = await signIn(h, `198.51.100.${n + 1}`)
        for (let i = 0; i < count; i++) expect((await verify(h, { flow: last.flow, code: wrong(last.code) })).status).toBe(401)
      }
      const wrongAnswer = await verify(h, { flow: last.flow, code: wrong(last.code) })
      const rightAnswer = await verify(h, { flow: last.flow, code: last.code })
      const third = await verify(h, { flow: last.flow, code: last.code })
      for (const res of [wrongAnswer, rightAnswer, third]) {
        expect(res.status).toBe(401)
        expect(res.headers.get('www-authenticate')).toBe('Bearer')
        expect(res.headers.get('retry-after')).toBeNull()
      }
      const bodies = await Promise.all([wrongAnswer.text(), rightAnswer.text()])
      expect(bodies[1]).toBe(bodies[0])
      expect(JSON.parse(bodies[0])).toMatchObject({ status: 401, code: 'invalid_sign_in' })
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'rate_limited').at(-1)).toMatchObject({
        endpoint: 'email-sign-in-verify',
        userId: ada.user.id,
      })
      // A link is no code: the known browser's mail signs in by its link.
      const known = await signIn(h, '198.51.100.9', ada.device)
      expect((await verify(h, { token: known.token })).status).toBe(200)
      // When the window ends, the flow has the three tries it had left: refused codes spent none.
      h.clock.advance(5 * MINUTE)
      expect((await verify(h, { flow: last.flow, code: last.code })).status).toBe(200)
    },
  )
})
