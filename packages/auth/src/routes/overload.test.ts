/**
 * The password-hashing queue is bounded (docs/reference/limits.md#the-hash-queue): past `hashQueue` hashings running or
 * waiting, a request that would hash answers 503 with `Retry-After` before it hashes anything.
 */
import { describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
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
