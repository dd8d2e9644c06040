import { describe, expect, it } from 'vitest'
import { limitKey, memoryRateLimitStore } from './rate-limit.js'

const WINDOW = 15 * 60 * 1000

describe('memoryRateLimitStore', () => {
  it('counts per key within a window and starts over after it', async () => {
    const store = memoryRateLimitStore()
    expect(await store.hit('a', 3, WINDOW, 0)).toEqual({ count: 1, resetAt: WINDOW })
    expect((await store.hit('a', 3, WINDOW, 1000)).count).toBe(2)
    expect((await store.hit('b', 3, WINDOW, 1000)).count).toBe(1)
    expect((await store.hit('a', 3, WINDOW, WINDOW)).count).toBe(1)
  })

  it('stays bounded under 10^5 distinct keys, and a flood never frees an already-limited key', async () => {
    const store = memoryRateLimitStore({ maxKeys: 10_000 })
    for (let i = 0; i < 11; i++) await store.hit('login:email:victim@example.com', 10, WINDOW, 0)
    expect((await store.hit('login:email:victim@example.com', 10, WINDOW, 1)).count).toBeGreaterThan(10)

    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 100_000; i++) await store.hit(`login:email:flood${i}@example.com`, 10, WINDOW, 2)
    expect(store.size()).toBeLessThanOrEqual(10_000)
    // Heap growth is bounded by the table, not by the number of keys seen (a loose bound: GC timing varies).
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024)

    const victim = await store.hit('login:email:victim@example.com', 10, WINDOW, 3)
    expect(victim.count).toBeGreaterThan(10)
    expect(victim.resetAt).toBe(WINDOW)
  })

  it('when every slot holds a limited key, new keys are still counted (in shared overflow counters)', async () => {
    const store = memoryRateLimitStore({ maxKeys: 100, overflowSlots: 8 })
    for (let k = 0; k < 100; k++) for (let i = 0; i < 3; i++) await store.hit(`limited${k}`, 2, WINDOW, 0)
    expect(store.size()).toBe(100)
    let last = 0
    for (let i = 0; i < 5; i++) last = (await store.hit('newcomer', 2, WINDOW, 1)).count
    expect(last).toBeGreaterThanOrEqual(5)
    expect(store.size()).toBe(100)
    for (let k = 0; k < 100; k++) expect((await store.hit(`limited${k}`, 2, WINDOW, 2)).count).toBe(4)
  })

  it('reuses the slots of expired windows', async () => {
    const store = memoryRateLimitStore({ maxKeys: 10 })
    for (let i = 0; i < 10; i++) for (let j = 0; j < 5; j++) await store.hit(`old${i}`, 2, WINDOW, 0)
    expect((await store.hit('fresh', 2, WINDOW, WINDOW + 1)).count).toBe(1)
    expect((await store.hit('fresh', 2, WINDOW, WINDOW + 2)).count).toBe(2)
    expect(store.size()).toBe(10)
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
})
