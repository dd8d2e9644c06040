/**
 * The limiter's promises (docs/reference/limits.md#how-a-limit-counts) on each store: counting and windows, a refused
 * attempt records nothing on any key, atomic check-and-count under concurrency (first attempts
 * included), and for the in-process store: a flood of new keys never makes it forget a key with
 * attempts in its window, and its memory stays bounded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { freshSchema, pgUnreachable } from '../test/stores.js'
import { rateLimitAddress } from './credentials.js'
import { postgresRateLimitStore } from './postgres/index.js'
import { type LimitCheck, limitKey, memoryRateLimitStore, type RateLimitStore } from './rate-limit.js'

const WINDOW = 15 * 60 * 1000
const T = Date.parse('2026-11-21T10:00:00.000Z')
const check = (key: string, max = 10, windowMs = WINDOW): LimitCheck => ({ key, max, windowMs })

const kinds: { name: string; skip: string | null; open(): Promise<{ stores: RateLimitStore[]; close(): Promise<void> }> }[] = [
  {
    name: 'memory',
    skip: null,
    async open() {
      const store = memoryRateLimitStore()
      return { stores: [store, store], close: async () => {} }
    },
  },
  {
    name: 'postgres',
    skip: pgUnreachable,
    async open() {
      const db = await freshSchema()
      return { stores: [postgresRateLimitStore(db.pool), postgresRateLimitStore(db.connect())], close: db.drop }
    },
  },
]

describe.each(kinds)('rate-limit store: $name', ({ skip, open }) => {
  let stores: RateLimitStore[]
  let close: () => Promise<void>
  beforeEach(async () => {
    if (!skip) ({ stores, close } = await open())
  })
  afterEach(async () => {
    if (!skip) await close()
  })
  const store = () => stores[0] as RateLimitStore

  it.skipIf(skip !== null)('allows max attempts per window, refuses the next with the time left, starts over after', async () => {
    for (let i = 0; i < 3; i++) expect(await store().attempt([check('a', 3)], T + i)).toEqual({ allowed: true })
    expect(await store().attempt([check('a', 3)], T + 1000)).toEqual({
      allowed: false,
      retryAfterMs: WINDOW - 1000,
      refusedBy: 'a',
    })
    expect((await store().attempt([check('b', 3)], T + 1000)).allowed).toBe(true)
    expect((await store().attempt([check('a', 3)], T + WINDOW)).allowed).toBe(true)
  })

  it.skipIf(skip !== null)('records nothing when one key refuses: the other keys keep their counts', async () => {
    for (let i = 0; i < 2; i++) await store().attempt([check('ip:1', 2)], T)
    // A hundred attempts with new emails from the limited address: all refused, none counted.
    for (let i = 0; i < 100; i++)
      expect(await store().attempt([check(`email:flood-${i}`, 2), check('ip:1', 2)], T + 1)).toMatchObject({
        allowed: false,
        refusedBy: 'ip:1',
      })
    for (let i = 0; i < 2; i++) expect((await store().attempt([check('email:flood-7', 2)], T + 2)).allowed).toBe(true)
    expect((await store().attempt([check('email:flood-7', 2)], T + 2)).allowed).toBe(false)
  })

  it.skipIf(skip !== null)(
    'lets exactly max of 50 concurrent first attempts on a fresh key through, across instances',
    async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (stores[i % 2] as RateLimitStore).attempt([check('login:email:victim', 10)], T)),
      )
      expect(results.filter((r) => r.allowed)).toHaveLength(10)
    },
  )
})

describe('memoryRateLimitStore under a flood of new keys', () => {
  it('never forgets a key with attempts in its window, however many keys arrive, within maxKeys', async () => {
    const store = memoryRateLimitStore({ maxKeys: 100 })
    for (let i = 0; i < 9; i++) await store.attempt([check('email:victim')], T)
    for (let i = 0; i < 20_000; i++) await store.attempt([check(`email:flood-${i}`)], T + 1)
    expect(store.size()).toBe(100)
    expect((await store.attempt([check('email:victim')], T + 2)).allowed).toBe(true)
    expect((await store.attempt([check('email:victim')], T + 2)).allowed).toBe(false)
    // Newcomers past the table are counted too (in the sketch), never under-counted.
    for (let i = 0; i < 10; i++) expect((await store.attempt([check('email:newcomer')], T + 3)).allowed).toBe(true)
    expect((await store.attempt([check('email:newcomer')], T + 3)).allowed).toBe(false)
    // An innocent newcomer is not refused because of the flood's 20,000 keys.
    expect((await store.attempt([check('email:innocent')], T + 4)).allowed).toBe(true)
  })

  it('frees the table as windows end, and a key moved from the sketch keeps its count', async () => {
    const store = memoryRateLimitStore({ maxKeys: 10 })
    for (let i = 0; i < 10; i++) await store.attempt([check(`old-${i}`, 10, 100)], T)
    for (let i = 0; i < 4; i++) await store.attempt([check('late', 5, 1000)], T + 10)
    expect(store.size()).toBe(10)
    // The old windows ended: 'late' gets an exact counter that starts from the sketch's 4.
    expect((await store.attempt([check('late', 5, 1000)], T + 200)).allowed).toBe(true)
    expect(store.size()).toBe(10)
    expect((await store.attempt([check('late', 5, 1000)], T + 201)).allowed).toBe(false)
  })
})

describe('limitKey', () => {
  it('keeps ordinary keys readable and bounds long ones: a 60,000-character email is a 64-byte key of its own', () => {
    expect(limitKey('login', 'email', 'ada@example.com')).toBe('login:email:ada@example.com')
    expect(limitKey('login', 'ip', '2001:db8::1')).toBe('login:ip:2001:db8::1')
    const long = `${'a'.repeat(60_000)}@example.com`
    const key = limitKey('forgot-password', 'email', long)
    expect(key.length).toBeLessThanOrEqual(70)
    expect(key).toBe(limitKey('forgot-password', 'email', long))
    expect(key).not.toBe(limitKey('forgot-password', 'email', `b${long}`))
    expect(key).not.toBe(limitKey('login', 'email', long))
  })

  it('hashes a value no store can hold', () => {
    expect(limitKey('login', 'email', 'a\u0000b')).toMatch(/^login:email#[A-Za-z0-9_-]{43}$/)
  })
})

describe('rateLimitAddress', () => {
  it('counts IPv4 as it is, IPv4-mapped IPv6 as IPv4, and IPv6 per /64 (or the configured prefix)', () => {
    expect(rateLimitAddress('203.0.113.7', 64)).toBe('203.0.113.7')
    expect(rateLimitAddress('::ffff:203.0.113.7', 64)).toBe('203.0.113.7')
    expect(rateLimitAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64)).toBe('2001:db8:1:2:0:0:0:0/64')
    expect(rateLimitAddress('2001:db8:1:2::1', 64)).toBe(rateLimitAddress('2001:db8:1:2:ffff::9', 64))
    expect(rateLimitAddress('2001:db8:1:3::1', 64)).not.toBe(rateLimitAddress('2001:db8:1:2::1', 64))
    expect(rateLimitAddress('2001:db8:1:2::1', 48)).toBe('2001:db8:1:0:0:0:0:0/48')
    expect(rateLimitAddress('2001:db8::1', 128)).toBe('2001:db8:0:0:0:0:0:1/128')
    expect(rateLimitAddress('fe80::1%eth0', 64)).toBe('fe80:0:0:0:0:0:0:0/64')
    expect(rateLimitAddress('::1', 64)).toBe('0:0:0:0:0:0:0:0/64')
    expect(rateLimitAddress('2001:db8:1:2:3:4:1.2.3.4', 64)).toBe('2001:db8:1:2:0:0:0:0/64')
    // Not an address (a proxy header's junk): counted as it is.
    expect(rateLimitAddress('unknown', 64)).toBe('unknown')
    expect(rateLimitAddress('1:2:3', 64)).toBe('1:2:3')
  })
})
