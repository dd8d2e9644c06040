/**
 * Refreshing does not pile up rows (issue 13, finding 9: 500 refreshes had left 501 rows for one
 * session), and reuse detection still reaches every value a session was ever issued.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, refreshCookie } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { tokenHash } from '../opaque-token.js'

describe.each(STORES)('refresh rows on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)(
    'keeps one row per session through 500 refreshes, and still catches the first value as reuse',
    async () => {
      const h = harness({ store: opened.store })
      const { refresh: first, bearer } = await h.signup()
      let current = first
      for (let i = 0; i < 500; i++) {
        const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })
        expect(res.status).toBe(200)
        current = refreshCookie(res) ?? ''
        // Past the race window, so the next refresh is not a parallel tab's, and under the per-session
        // refresh limit (300 per 15 minutes).
        h.clock.advance(11_000)
      }
      expect(await opened.count('auth_sessions')).toBe(1)

      // The value issued at signup, 500 rotations ago, is reuse: the session ends for everyone.
      const reuse = await h.request('POST', '/auth/refresh', { headers: cookieHeader(first) })
      expect(reuse.status).toBe(401)
      expect(await opened.count('auth_sessions')).toBe(0)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(401)
      expect((await h.request('GET', '/auth/me', { headers: bearer })).status).toBe(401)
    },
  )

  it.skipIf(skip !== null)(
    'answers a value made up with the real session key with 401 and changes nothing: only a value the session issued is reuse',
    async () => {
      const h = harness({ store: opened.store })
      const { refresh: first, bearer } = await h.signup()
      const rotated = await h.request('POST', '/auth/refresh', { headers: cookieHeader(first) })
      const current = refreshCookie(rotated) as string
      const [sid, key, value] = current.split('.') as [string, string, string]
      const [, , firstValue] = first.split('.') as [string, string, string]
      h.clock.advance(60_000) // past the race window
      const before = await opened.rows('auth_sessions')
      const random = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString('base64url')
      const tweak = (v: string) => `${v.slice(0, -1)}${v.endsWith('A') ? 'B' : 'A'}`
      // What the holder of any one value knows: the session id and its key.
      for (const forged of [
        `${sid}.${key}.${random(32)}`,
        `${sid}.${key}.${random(48)}`,
        `${sid}.${key}.${value}x`,
        `${sid}.${key}.${tweak(value)}`,
        `${sid}.${key}.${tweak(firstValue)}`,
        `${sid}.${key}.${value.slice(0, 43)}${random(16).slice(0, 22)}`,
        `${sid}.${key}.${value.slice(0, 43)}`,
        `${sid}.${key}.`,
      ]) {
        const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(forged) })
        expect(res.status, forged).toBe(401)
        expect(await opened.rows('auth_sessions')).toEqual(before)
      }
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'refresh.reuse_detected')).toEqual([])
      // The session lives: its token and its current value work.
      expect((await h.request('GET', '/auth/me', { headers: bearer })).status).toBe(200)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(200)
    },
  )

  it.skipIf(skip !== null)(
    'recognises a value marked under a signing secret while it is listed; once removed, that value no longer ends the session',
    async () => {
      const OLD = 'an-old-signing-secret-long-enough-0123456789'
      const NEW = 'a-new-signing-secret-long-enough-9876543210'
      const before = harness({ store: opened.store, secret: OLD })
      const { refresh: first } = await before.signup()
      const second = refreshCookie(await before.request('POST', '/auth/refresh', { headers: cookieHeader(first) })) as string
      // Rotated: NEW marks, OLD still recognises. `first` is two values back, marked under OLD.
      const rotated = harness({ store: opened.store, secret: [NEW, OLD] })
      rotated.clock.advance(60_000)
      const third = refreshCookie(await rotated.request('POST', '/auth/refresh', { headers: cookieHeader(second) })) as string
      rotated.clock.advance(60_000)
      const fourth = refreshCookie(await rotated.request('POST', '/auth/refresh', { headers: cookieHeader(third) })) as string
      // OLD removed: `first` (two back, marked under OLD) is no longer recognised as issued.
      const after = harness({ store: opened.store, secret: NEW })
      after.clock.advance(120_000)
      expect((await after.request('POST', '/auth/refresh', { headers: cookieHeader(first) })).status).toBe(401)
      expect(await opened.count('auth_sessions')).toBe(1)
      // `second` (marked under OLD too) is the same; `third` (marked under NEW) two back is reuse.
      expect((await after.request('POST', '/auth/refresh', { headers: cookieHeader(second) })).status).toBe(401)
      expect(await opened.count('auth_sessions')).toBe(1)
      const fifth = refreshCookie(await after.request('POST', '/auth/refresh', { headers: cookieHeader(fourth) })) as string
      after.clock.advance(60_000)
      expect((await after.request('POST', '/auth/refresh', { headers: cookieHeader(third) })).status).toBe(401)
      expect(await opened.count('auth_sessions')).toBe(0)
      expect((await after.request('POST', '/auth/refresh', { headers: cookieHeader(fifth) })).status).toBe(401)
    },
  )

  it.skipIf(skip !== null)(
    'answers a value made up under a known session id with 401 and changes nothing; a real old value ends the session',
    async () => {
      const h = harness({ store: opened.store })
      const { refresh: first } = await h.signup()
      const rotated = await h.request('POST', '/auth/refresh', { headers: cookieHeader(first) })
      let current = refreshCookie(rotated) as string
      const [sid, key, value] = current.split('.') as [string, string, string]
      h.clock.advance(60_000) // past the race window
      const before = await opened.rows('auth_sessions')
      const random = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
      // What the session id alone allows (it is in audit lines, request logs and every access token).
      for (const forged of [
        `${sid}.${random()}`,
        `${sid}.${random()}.${random()}`,
        `${sid}.${random()}.${value}`,
        `${sid}.${value}`,
      ]) {
        const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(forged) })
        expect(res.status, forged).toBe(401)
        expect(await opened.rows('auth_sessions')).toEqual(before)
      }
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'refresh.reuse_detected')).toEqual([])
      expect(key).toHaveLength(43)
      const still = await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })
      expect(still.status).toBe(200)
      current = refreshCookie(still) as string
      h.clock.advance(60_000)

      // The value the session issued at signup, two rotations ago: reuse, the session ends.
      const reuse = await h.request('POST', '/auth/refresh', { headers: cookieHeader(first) })
      expect(reuse.status).toBe(401)
      expect(await opened.count('auth_sessions')).toBe(0)
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'refresh.reuse_detected')).toHaveLength(1)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(401)
    },
  )

  it.skipIf(skip !== null)(
    'keeps refreshing a session issued before session keys, and gives it one at its first rotation',
    async () => {
      const h = harness({ store: opened.store })
      const { user } = await h.signup()
      // A session as the release before session keys left it: `<session id>.<value>`, no key hash.
      const sid = crypto.randomUUID()
      const old = 'A'.repeat(43)
      expect(
        await opened.store.createSession({
          id: sid,
          userId: user.id,
          refreshHash: tokenHash(old),
          now: h.clock.now(),
          credentialsVersion: 0,
        }),
      ).toBe(true)
      const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(`${sid}.${old}`) })
      expect(res.status).toBe(200)
      const next = refreshCookie(res) as string
      expect(next.split('.')).toHaveLength(3)
      expect(next.startsWith(`${sid}.`)).toBe(true)
      h.clock.advance(60_000)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(`${sid}.${'B'.repeat(43)}`) })).status).toBe(401)
      const again = await h.request('POST', '/auth/refresh', { headers: cookieHeader(next) })
      expect(again.status).toBe(200)
      h.clock.advance(60_000)
      // A value it issued and rotated away, presented after the race window: reuse.
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(next) })).status).toBe(401)
      expect(await opened.store.findSession(sid)).toBeNull()
    },
  )

  it.skipIf(skip !== null)('ignores a session id it cannot hold (no 500, nothing revoked)', async () => {
    const h = harness({ store: opened.store })
    const { refresh } = await h.signup()
    const random = refresh.slice(refresh.indexOf('.') + 1)
    for (const value of [`not-a-uuid.${random}`, `%00.${random}`, `${'f'.repeat(36)}.${random}`]) {
      const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(value) })
      expect(res.status, value).toBe(401)
    }
    expect(await opened.count('auth_sessions')).toBe(1)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })).status).toBe(200)
  })
})

describe('POST /auth/refresh rate limits', () => {
  it('limits refreshes per session and per address, counting nothing a refusal touches', async () => {
    const h = harness({ rateLimit: { refresh: { session: { max: 5, windowSeconds: 900 }, ip: { max: 8, windowSeconds: 900 } } } })
    const { refresh } = await h.signup()
    let current = refresh
    for (let i = 0; i < 5; i++) {
      const res = await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })
      expect(res.status).toBe(200)
      current = refreshCookie(res) ?? ''
      h.clock.advance(11_000)
    }
    const limited = await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    // The refused refresh spent nothing: after the window the same value still rotates.
    h.clock.advance(900_000)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(current) })).status).toBe(200)

    // Per address: three other sessions' refreshes from one address meet the address limit of 8.
    const other = harness({
      rateLimit: { refresh: { session: { max: 100, windowSeconds: 900 }, ip: { max: 3, windowSeconds: 900 } } },
    })
    const { refresh: value } = await other.signup()
    const statuses = []
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await other.request('POST', '/auth/refresh', { headers: cookieHeader(`unknown-value-${i}`), ip: '198.51.100.1' }))
          .status,
      )
    expect(statuses).toEqual([401, 401, 401, 429])
    expect((await other.request('POST', '/auth/refresh', { headers: cookieHeader(value), ip: '198.51.100.2' })).status).toBe(200)
  })

  it('answers 401 for a missing cookie and 403 for another site before the limit', async () => {
    const h = harness({ rateLimit: { refresh: { ip: { max: 1, windowSeconds: 900 } } } })
    const { refresh } = await h.signup()
    for (let i = 0; i < 3; i++) expect((await h.request('POST', '/auth/refresh')).status).toBe(401)
    for (let i = 0; i < 3; i++)
      expect(
        (await h.request('POST', '/auth/refresh', { headers: { ...cookieHeader(refresh), Origin: 'https://evil.test' } })).status,
      ).toBe(403)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(refresh) })).status).toBe(200)
  })
})
