/**
 * Breached passwords (docs/guide/account-protection.md#breached-passwords): every new password is checked against a
 * Pwned-Passwords range API by k-anonymity, before anything is written; a service that stalls or
 * fails lets the password through with an event; login never asks. Against real HTTP servers on
 * loopback (`test/range-server.ts`), on every store.
 */
import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type RangeService, startFailingServer, startRangeServer, startStallingServer } from '../../test/range-server.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { breachCheck, rangeVerdict } from '../breached-passwords.js'
import type { PasswordHasher } from '../password.js'
import { fastHasher } from '../testing/index.js'

/** xkcd 936's example password: in the published breach corpus, and not on the common list. */
const BREACHED = 'Tr0ub4dor&3'
const CLEAN = 'velvet orbit quarry ninety'
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex').toUpperCase()

let range: RangeService
let stalling: RangeService
let failing: RangeService
beforeAll(async () => {
  ;[range, stalling, failing] = await Promise.all([startRangeServer([BREACHED]), startStallingServer(), startFailingServer()])
})
afterAll(async () => {
  await Promise.all([range?.close(), stalling?.close(), failing?.close()])
})

describe('the range client', () => {
  it('finds a password of the shipped list and an added one, and not a fresh one', async () => {
    const check = breachCheck({ url: range.url })
    expect(await check('iloveyou2')).toBe('breached')
    expect(await check(BREACHED)).toBe('breached')
    expect(await check(CLEAN)).toBe('clean')
    // Case matters to the service: SHA-1 of the exact text.
    expect(await check(BREACHED.toLowerCase())).toBe('clean')
  })

  it('sends only the first five hex characters of the SHA-1, with Add-Padding: true', async () => {
    const before = range.requests.length
    await breachCheck({ url: `${range.url}/` })(BREACHED)
    const sent = range.requests.slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]?.url).toBe(`/range/${sha1(BREACHED).slice(0, 5)}`)
    expect(sent[0]?.headers['add-padding']).toBe('true')
    expect(JSON.stringify(sent)).not.toContain(sha1(BREACHED).slice(5, 12))
  })

  it('reads padding lines (count 0) as no breach, and an answer with no range line as unavailable', () => {
    const suffix = sha1(CLEAN).slice(5)
    expect(rangeVerdict(`${suffix}:0\r\n${'A'.repeat(35)}:3`, suffix)).toBe('clean')
    expect(rangeVerdict(`${'A'.repeat(35)}:3\r\n${suffix.toLowerCase()}:12`, suffix)).toBe('breached')
    expect(rangeVerdict('<html>Bad gateway</html>', suffix)).toBeNull()
  })

  it('is unavailable, in about its timeout, when the service stalls mid-answer or fails', async () => {
    const started = Date.now()
    expect(await breachCheck({ url: stalling.url, timeoutMs: 200 })(CLEAN)).toBe('unavailable')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await breachCheck({ url: failing.url })(CLEAN)).toBe('unavailable')
    expect(await breachCheck({ url: 'http://127.0.0.1:9', timeoutMs: 500 })(CLEAN)).toBe('unavailable')
  })

  it('refuses a bad option when the app is wired', () => {
    expect(() => breachCheck({ url: 'ftp://example.com' })).toThrow(/breachedPasswords\.url/)
    expect(() => breachCheck({ timeoutMs: 0 })).toThrow(/breachedPasswords\.timeoutMs/)
  })
})

describe.each(STORES)('breached passwords on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const setup = (url = range.url, timeoutMs?: number) =>
    harness({ store: opened.store, breachedPasswords: { url, ...(timeoutMs ? { timeoutMs } : {}) } })

  const expectBreached = async (res: Response, field: string) => {
    expect(res.status).toBe(400)
    const body = (await res.json()) as { errors: { path: string; code: string }[] }
    expect(body.errors).toEqual([expect.objectContaining({ path: field, code: 'breached_password' })])
  }

  /** Every request the service got since `from`: five hex characters and the padding header, nothing more. */
  const expectOnlyPrefixes = (from: number) => {
    const sent = range.requests.slice(from)
    expect(sent.length).toBeGreaterThan(0)
    for (const request of sent) {
      expect(request.url).toMatch(/^\/range\/[0-9A-F]{5}$/)
      expect(request.headers['add-padding']).toBe('true')
    }
    expect(JSON.stringify(sent)).not.toContain(sha1(BREACHED).slice(5, 12))
  }

  it.skipIf(skip !== null)(
    'refuses a breached password at signup, the same whether or not the email has an account',
    async () => {
      const h = setup()
      const from = range.requests.length
      await h.signup('taken@example.com', CLEAN)
      const fresh = await h.request('POST', '/auth/signup', {
        json: { name: 'Ada', email: 'new@example.com', password: BREACHED },
      })
      const taken = await h.request('POST', '/auth/signup', {
        json: { name: 'Ada', email: 'taken@example.com', password: BREACHED },
      })
      const freshText = await fresh.clone().text()
      await expectBreached(fresh, 'password')
      expect(taken.status).toBe(400)
      expect(await taken.text()).toBe(freshText)
      expect(fresh.headers.getSetCookie()).toEqual([])
      expect(await opened.count('auth_users')).toBe(1)
      expectOnlyPrefixes(from)
    },
  )

  it.skipIf(skip !== null)('refuses a breached new password on change-password; the old one keeps working', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com', CLEAN)
    const res = await h.request('POST', '/auth/change-password', {
      json: { currentPassword: CLEAN, newPassword: BREACHED },
      headers: ada.bearer,
    })
    await expectBreached(res, 'newPassword')
    expect((await h.login('ada@example.com', CLEAN)).status).toBe(200)
    expect((await h.login('ada@example.com', BREACHED)).status).toBe(401)
  })

  it.skipIf(skip !== null)('refuses a breached password on reset-password without spending the token', async () => {
    const h = setup()
    await h.signup('ada@example.com', CLEAN)
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    await h.auth.settled()
    const token = h.mails.at(-1)?.token as string
    const from = range.requests.length
    await expectBreached(
      await h.request('POST', '/auth/reset-password', { json: { token, newPassword: BREACHED } }),
      'newPassword',
    )
    expectOnlyPrefixes(from)
    expect((await h.login('ada@example.com', CLEAN)).status).toBe(200)
    expect((await h.request('POST', '/auth/reset-password', { json: { token, newPassword: PASSWORD } })).status).toBe(204)
    expect((await h.login('ada@example.com', PASSWORD)).status).toBe(200)
  })

  it.skipIf(skip !== null)(
    'hashes while the service answers: the request waits for the slower of the two, not their sum',
    async () => {
      const order: string[] = []
      const fast = fastHasher()
      const hasher: PasswordHasher = {
        ...fast,
        hash: (password) => {
          order.push('hash')
          return fast.hash(password)
        },
      }
      // The real range service, answering 150 ms late.
      const slowFetch: typeof fetch = async (input, init) => {
        order.push('asked')
        const res = await fetch(input, init)
        await sleep(150)
        order.push('answered')
        return res
      }
      /** The hash started before the service answered. */
      const hashedMeanwhile = () => {
        const seen = order.splice(0)
        expect([...seen].sort()).toEqual(['answered', 'asked', 'hash'])
        expect(seen.at(-1)).toBe('answered')
      }
      const h = harness({ store: opened.store, hasher, breachedPasswords: { url: range.url, fetch: slowFetch } })
      const ada = await h.signup('ada@example.com', CLEAN)
      hashedMeanwhile()
      const changed = await h.request('POST', '/auth/change-password', {
        json: { currentPassword: CLEAN, newPassword: PASSWORD },
        headers: ada.bearer,
      })
      expect(changed.status).toBe(204)
      hashedMeanwhile()
      // A breached password is still refused, and nothing was written for it.
      await expectBreached(
        await h.request('POST', '/auth/signup', { json: { name: 'Bo', email: 'bo@example.com', password: BREACHED } }),
        'password',
      )
      expect(await opened.count('auth_users')).toBe(1)
    },
  )

  it.skipIf(skip !== null)('never asks the service at login, right or wrong password', async () => {
    const h = setup()
    await h.signup('ada@example.com', CLEAN)
    const from = range.requests.length
    expect((await h.login('ada@example.com', CLEAN)).status).toBe(200)
    expect((await h.login('ada@example.com', BREACHED)).status).toBe(401)
    expect((await h.login('nobody@example.com', BREACHED)).status).toBe(401)
    expect(range.requests.length).toBe(from)
  })

  for (const service of ['stalling', 'failing'] as const)
    it.skipIf(skip !== null)(`accepts every new password when the service is ${service}, with an event`, async () => {
      const h = setup(service === 'stalling' ? stalling.url : failing.url, 300)
      const ada = await h.signup('ada@example.com', BREACHED)
      expect(
        (
          await h.request('POST', '/auth/change-password', {
            json: { currentPassword: BREACHED, newPassword: CLEAN },
            headers: ada.bearer,
          })
        ).status,
      ).toBe(204)
      await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
      await h.auth.settled()
      const token = h.mails.at(-1)?.token as string
      expect((await h.request('POST', '/auth/reset-password', { json: { token, newPassword: PASSWORD } })).status).toBe(204)
      expect((await h.login('ada@example.com', PASSWORD)).status).toBe(200)
      await h.auth.settled()
      const unavailable = h.events.filter((e) => e.type === 'breach_check.unavailable')
      expect(unavailable.map((e) => [e.type === 'breach_check.unavailable' && e.endpoint, e.userId])).toEqual([
        ['signup', undefined],
        ['change-password', ada.user.id],
        ['reset-password', ada.user.id],
      ])
      const text = JSON.stringify(unavailable)
      for (const secret of [BREACHED, CLEAN, PASSWORD])
        for (const piece of [secret, sha1(secret), sha1(secret).slice(0, 5)]) expect(text).not.toContain(piece)
    })
})
