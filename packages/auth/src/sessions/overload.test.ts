/**
 * The password-hashing queue is bounded (docs/reference/limits.md#the-hash-queue): past `hashQueue` hashings running or
 * waiting, a request that would hash answers 503 with `Retry-After` before it hashes anything.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { PasswordHasher } from '../password.js'
import { fastHasher } from '../testing/index.js'

/** A hasher whose every verification waits at a gate, counting the calls that reached it. */
const gatedHasher = () => {
  const inner = fastHasher()
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const calls = { hash: 0, verify: 0 }
  const hasher: PasswordHasher = {
    async hash(password) {
      calls.hash++
      return inner.hash(password)
    },
    async verify(stored, password) {
      calls.verify++
      await gate
      return inner.verify(stored, password)
    },
    needsRehash: () => false,
  }
  return { hasher, calls, open: () => open() }
}

describe('the bounded hashing queue', () => {
  it('answers 503 with Retry-After once hashQueue hashings are in flight, before hashing', async () => {
    const plain = harness()
    await plain.signup()

    const gated = gatedHasher()
    const h = harness({ store: plain.store, hasher: gated.hasher, hashQueue: 2 })
    await new Promise((resolve) => setTimeout(resolve, 0))
    // Nothing hashes ahead of a request (a Worker would cancel it with the request that began it).
    expect(gated.calls.hash).toBe(0)
    const inFlight = [h.login('ada@example.com', PASSWORD, '192.0.2.1'), h.login('ada@example.com', 'wrong guess', '192.0.2.2')]
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(gated.calls.verify).toBe(2)
    // A custom hasher's decoy is hashed inside the first logins, once each, then kept.
    const decoys = gated.calls.hash
    expect(decoys).toBeGreaterThanOrEqual(1)

    const refused = await h.login('ada@example.com', PASSWORD, '192.0.2.3')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get('content-type')).toBe('application/problem+json')
    const signup = await h.request('POST', '/auth/signup', {
      json: { name: 'B', email: 'b@example.com', password: PASSWORD },
      ip: '192.0.2.4',
    })
    expect(signup.status).toBe(503)
    // Refused before hashing: the hasher saw no call for either.
    expect(gated.calls).toEqual({ hash: decoys, verify: 2 })

    gated.open()
    expect((await Promise.all(inFlight)).map((r) => r.status)).toEqual([200, 401])
    expect((await h.login('ada@example.com', PASSWORD, '192.0.2.5')).status).toBe(200)
  })

  it('logs once that a custom hasher is in use, since the argon2id floor is not checked on it', () => {
    const h = harness()
    expect(h.logs.filter((line) => line.includes('custom hasher'))).toHaveLength(1)
  })
})

/** Waits until `condition` holds (checked every 5 ms), failing after 5 seconds. */
const until = async (condition: () => boolean) => {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error('condition not met within 5 s')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe.each(STORES)('one client cannot starve the hashing queue on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  const burst = [
    ['one IPv4 address', (i: number) => `198.51.100.7:${20_000 + i}`],
    ['many /64s of one IPv6 /48', (i: number) => `2001:db8:77:${i.toString(16)}::1`],
  ] as const

  it.skipIf(skip !== null).each(burst)(
    "holds a quarter of the queue: the burst of %s gets 503s, another client's logins are served",
    async (_, from) => {
      const plain = harness({ store: opened.store })
      await plain.signup('ada@example.com')
      await plain.signup('bob@example.com')
      const gated = gatedHasher()
      // Limits out of the way: this is about the queue, not the per-address counts.
      const generous = { max: 1_000_000, windowSeconds: 900 }
      const h = harness({
        store: opened.store,
        hasher: gated.hasher,
        hashQueue: 32,
        rateLimit: { ip: generous, email: generous },
      })
      // 40 concurrent logins from one client, all waiting at the gate: 8 (a quarter of 32) get a
      // place, the other 32 are answered 503 at once.
      let answered = 0
      const counted = (reply: Promise<Response>) =>
        reply.then((r) => {
          answered++
          return r
        })
      const flood = Array.from({ length: 40 }, (_, i) =>
        counted(h.login('ada@example.com', i % 2 ? PASSWORD : 'wrong guess', from(i))),
      )
      // Every login of the burst is either answered or waiting at the hasher.
      await until(() => answered + gated.calls.verify === 40)
      expect(gated.calls.verify).toBe(8)
      // Meanwhile another client signs in twice, and another /48 and IPv4 address too: each reaches the hasher.
      const others = ['192.0.2.44', '192.0.2.44', '2001:db8:78::5', '203.0.113.99'].map((ip) =>
        counted(h.login('bob@example.com', PASSWORD, ip)),
      )
      await until(() => answered + gated.calls.verify === 44)
      gated.open()
      const floodStatuses = (await Promise.all(flood)).map((r) => r.status)
      expect((await Promise.all(others)).map((r) => r.status)).toEqual([200, 200, 200, 200])
      expect(floodStatuses.filter((s) => s === 503)).toHaveLength(32)
      const refused = (await Promise.all(flood)).find((r) => r.status === 503)
      expect(refused?.headers.get('retry-after')).toBe('1')
    },
  )
})
