/**
 * Sessions per account are bounded (`maxSessions`, default 100): a sign-in past the limit ends
 * the least recently used session, reported as `session.revoked`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

describe.each(STORES)('sessions per account on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)('ends the least recently used session when a sign-in passes maxSessions', async () => {
    const h = harness({ store: opened.store, maxSessions: 3 })
    const signup = await h.signup()
    const values = [signup.refresh]
    for (let i = 0; i < 2; i++) {
      h.clock.advance(1000)
      const res = await h.login()
      expect(res.status).toBe(200)
      values.push(refreshCookie(res) as string)
    }
    // The signup session is used again: now the first login is the least recently used.
    h.clock.advance(1000)
    const used = await h.request('POST', '/auth/refresh', { headers: cookieHeader(values[0] as string) })
    expect(used.status).toBe(200)
    values[0] = refreshCookie(used) as string
    const leastRecent = (values[1] as string).split('.')[0]
    expect(await opened.count('auth_sessions')).toBe(3)

    h.clock.advance(1000)
    const fourth = await h.login()
    expect(fourth.status).toBe(200)
    expect(await opened.count('auth_sessions')).toBe(3)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'session.revoked')).toEqual([
      expect.objectContaining({ type: 'session.revoked', userId: signup.user.id, sessionId: leastRecent }),
    ])
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(values[1] as string) })).status).toBe(401)
    for (const value of [values[0], values[2], refreshCookie(fourth)])
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(value as string) })).status).toBe(200)
  })

  it.skipIf(skip !== null)('keeps 100 sessions by default: the 101st sign-in ends the first', async () => {
    const h = harness({
      store: opened.store,
      rateLimit: { email: { max: 1000, windowSeconds: 900 }, ip: { max: 1000, windowSeconds: 900 } },
    })
    const { user } = await h.signup('many@example.com')
    for (let i = 0; i < 100; i++) {
      h.clock.advance(1000)
      expect((await h.login('many@example.com', PASSWORD)).status).toBe(200)
    }
    expect((await opened.store.listSessions(user.id)).length).toBe(100)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'session.revoked')).toHaveLength(1)
  })
})
