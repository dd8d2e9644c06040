/** Sessions: creation, the guard's lookup, refresh facts and the compare-and-swap, and the core's rotation rules over the store. */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import { at, type Conformance, DAY, SESSION_KEY, T0 } from './context.js'

export const sessionsConformance = (t: Conformance) => {
  const { newUser, newSession, rotate } = t
  describe('sessions', () => {
    it('creates a session only while the credentials version it was given is current', async () => {
      const user = await newUser()
      const create = (credentialsVersion: number) =>
        t.store.createSession({
          id: crypto.randomUUID(),
          userId: user.id,
          refreshHash: crypto.randomUUID(),
          now: T0,
          credentialsVersion,
        })
      expect(await create(1)).toBe(false)
      expect(await create(0)).toBe(true)
      await t.store.createResetToken({ userId: user.id, tokenHash: 'bump', expiresAt: at(60_000) })
      await t.store.consumeResetToken({
        revoke: accountEvents['password-reset'],
        tokenHash: 'bump',
        now: T0,
        passwordHash: 'new',
      })
      expect(await create(0)).toBe(false)
      expect(await create(1)).toBe(true)
      expect(
        await t.store.createSession({
          id: crypto.randomUUID(),
          userId: crypto.randomUUID(),
          refreshHash: 'x',
          now: T0,
          credentialsVersion: 0,
        }),
      ).toBe(false)
    })

    it('of 20 logins racing a reset, none that read the old version keeps a session', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 'race-login', expiresAt: at(60_000) })
      const logins = Array.from({ length: 20 }, () => ({ id: crypto.randomUUID() }))
      await Promise.all([
        ...logins.map(({ id }) =>
          t.store.createSession({ id, userId: user.id, refreshHash: crypto.randomUUID(), now: T0, credentialsVersion: 0 }),
        ),
        t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'race-login',
          now: T0,
          passwordHash: 'after-reset',
        }),
      ])
      const alive = await Promise.all(logins.map(({ id }) => t.store.findSession(id)))
      expect(alive.filter(Boolean)).toEqual([])
    })

    it('finds a live session with its user as stored now, and forgets a deleted one', async () => {
      const user = await newUser()
      const sid = await newSession(user.id)
      await t.store.setRole(user.email, 'editor')
      const found = await t.store.findSession(sid)
      expect(found?.session).toMatchObject({ id: sid, userId: user.id })
      expect(found?.session.createdAt.getTime()).toBe(T0.getTime())
      expect(found?.user.role).toBe('editor')
      await t.store.deleteSession(sid)
      expect(await t.store.findSession(sid)).toBeNull()
      expect(await t.store.findSession(crypto.randomUUID())).toBeNull()
    })

    it('keeps the refresh facts of a session, found by its id or by its current hash', async () => {
      const user = await newUser()
      const sid = await newSession(user.id, 'h0')
      const facts = {
        id: sid,
        userId: user.id,
        refreshKeyHash: SESSION_KEY,
        refreshHash: 'h0',
        previousRefreshHash: null,
        rotatedAt: null,
      }
      const byId = await t.store.findRefresh({ sessionId: sid })
      expect(byId?.session).toMatchObject(facts)
      expect(byId?.session.createdAt.getTime()).toBe(T0.getTime())
      expect(byId?.user).toEqual(user)
      expect((await t.store.findRefresh({ currentHash: 'h0' }))?.session).toMatchObject(facts)

      expect(await t.store.swapRefresh({ sessionId: sid, from: 'h0', to: 'h1', keyHash: SESSION_KEY, now: at(5000) })).toBe(true)
      const swapped = await t.store.findRefresh({ sessionId: sid })
      expect(swapped?.session).toMatchObject({ refreshKeyHash: SESSION_KEY, refreshHash: 'h1', previousRefreshHash: 'h0' })
      expect(swapped?.session.rotatedAt?.getTime()).toBe(at(5000).getTime())
      expect(swapped?.session.refreshedAt.getTime()).toBe(at(5000).getTime())
      expect(await t.store.findRefresh({ currentHash: 'h0' })).toBeNull()
      expect(await t.store.findRefresh({ sessionId: crypto.randomUUID() })).toBeNull()
    })

    it('keeps no session key for a session from before keys, and takes one at its rotation', async () => {
      const sid = await newSession((await newUser()).id, 'k0', T0, null)
      expect((await t.store.findRefresh({ sessionId: sid }))?.session.refreshKeyHash).toBeNull()
      expect(await t.store.swapRefresh({ sessionId: sid, from: 'k0', to: 'k1', keyHash: 'new-key', now: at(1) })).toBe(true)
      expect((await t.store.findRefresh({ sessionId: sid }))?.session.refreshKeyHash).toBe('new-key')
    })

    it('swaps a refresh value only while it is current', async () => {
      const sid = await newSession((await newUser()).id, 'w0')
      expect(await t.store.swapRefresh({ sessionId: sid, from: 'w-other', to: 'w1', keyHash: SESSION_KEY, now: at(1) })).toBe(
        false,
      )
      expect(
        await t.store.swapRefresh({ sessionId: crypto.randomUUID(), from: 'w0', to: 'w1', keyHash: SESSION_KEY, now: at(1) }),
      ).toBe(false)
      expect((await t.store.findRefresh({ sessionId: sid }))?.session.refreshHash).toBe('w0')
    })

    it('lets exactly one of 20 concurrent swaps of one value change the row', async () => {
      const sid = await newSession((await newUser()).id, 's0')
      const swaps = Array.from({ length: 20 }, (_, i) =>
        t.store.swapRefresh({ sessionId: sid, from: 's0', to: `s1-${i}`, keyHash: SESSION_KEY, now: at(1) }),
      )
      const won = (await Promise.all(swaps)).map((ok, i) => (ok ? i : -1)).filter((i) => i >= 0)
      expect(won).toHaveLength(1)
      expect((await t.store.findRefresh({ sessionId: sid }))?.session).toMatchObject({
        refreshHash: `s1-${won[0]}`,
        previousRefreshHash: 's0',
      })
    })

    it('rotates a current value once; the new value is current', async () => {
      const user = await newUser()
      const sid = await newSession(user.id, 'r0')
      const first = await rotate(sid, 'r0', 'r1', 1000)
      expect(first.status).toBe('rotated')
      if (first.status === 'rotated') {
        expect(first.session.id).toBe(sid)
        expect(first.session.refreshedAt.getTime()).toBe(at(1000).getTime())
        expect(first.user.id).toBe(user.id)
      }
      expect((await rotate(sid, 'r1', 'r2', 2000)).status).toBe('rotated')
      expect((await t.store.findSession(sid))?.session.refreshedAt.getTime()).toBe(at(2000).getTime())
    })

    it('finds a value issued without a session id by its hash, while it is current', async () => {
      const sid = await newSession((await newUser()).id, 'legacy0', T0, null)
      const result = await rotate(null, 'legacy0', 'legacy1', 1000, { keyHash: null })
      expect(result.status).toBe('rotated')
      if (result.status === 'rotated') expect(result.session.id).toBe(sid)
      // A value that is no longer current cannot name its session: unknown, and nothing ends.
      expect((await rotate(null, 'legacy0', 'legacy-x', 60_000)).status).toBe('unknown')
      expect(await t.store.findSession(sid)).not.toBeNull()
    })

    it('refuses a just-replaced value inside the grace window without revoking', async () => {
      const sid = await newSession((await newUser()).id, 'g0')
      await rotate(sid, 'g0', 'g1', 0)
      expect((await rotate(sid, 'g0', 'gx', 9_999)).status).toBe('race')
      expect(await t.store.findSession(sid)).not.toBeNull()
      expect((await rotate(sid, 'g1', 'g2', 10_000)).status).toBe('rotated')
    })

    it('treats an older value after the window as reuse and deletes the whole session', async () => {
      const sid = await newSession((await newUser()).id, 'x0')
      await rotate(sid, 'x0', 'x1', 0)
      await rotate(sid, 'x1', 'x2', 20_000)
      expect((await rotate(sid, 'x0', 'xx', 40_000)).status).toBe('reused')
      expect(await t.store.findSession(sid)).toBeNull()
      expect((await rotate(sid, 'x2', 'x3', 40_001)).status).toBe('unknown')

      const other = await newSession((await newUser()).id, 'y0')
      await rotate(other, 'y0', 'y1', 0)
      expect((await rotate(other, 'y0', 'yx', 10_000)).status).toBe('reused')
      expect(await t.store.findSession(other)).toBeNull()
    })

    it('treats a value without the session key, under its id, as unknown: nothing ends', async () => {
      const sid = await newSession((await newUser()).id, 'f0')
      await rotate(sid, 'f0', 'f1', 0)
      // Someone who knows only the session id: a made-up value, or the current one without the key.
      for (const keyHash of [null, 'another-key'])
        for (const hash of ['forged', 'f1']) expect((await rotate(sid, hash, 'fx', 60_000, { keyHash })).status).toBe('unknown')
      expect((await t.store.findRefresh({ sessionId: sid }))?.session).toMatchObject({
        refreshHash: 'f1',
        previousRefreshHash: 'f0',
      })
      expect((await rotate(sid, 'f1', 'f2', 60_000)).status).toBe('rotated')
    })

    it('treats any value carrying the session key, that is not current, as reuse', async () => {
      const sid = await newSession((await newUser()).id, 'e0')
      await rotate(sid, 'e0', 'e1', 0)
      await rotate(sid, 'e1', 'e2', 20_000)
      expect((await rotate(sid, 'e0', 'ex', 40_000)).status).toBe('reused')
      expect(await t.store.findSession(sid)).toBeNull()
    })

    it('gives a session from before keys the key of its next value, and then judges by it', async () => {
      const sid = await newSession((await newUser()).id, 'o0', T0, null)
      expect((await rotate(sid, 'o0', 'o1', 0, { keyHash: null, nextKeyHash: 'fresh-key' })).status).toBe('rotated')
      expect((await rotate(sid, 'o1', 'ox', 20_000, { keyHash: null })).status).toBe('unknown')
      expect((await rotate(sid, 'o1', 'o2', 20_000, { keyHash: 'fresh-key', nextKeyHash: 'fresh-key' })).status).toBe('rotated')
      // From now on an earlier value is reuse.
      expect((await rotate(sid, 'o1', 'oy', 40_000, { keyHash: 'fresh-key' })).status).toBe('reused')
    })

    it('with a zero grace window, any replaced value is reuse', async () => {
      const sid = await newSession((await newUser()).id, 'z0')
      await rotate(sid, 'z0', 'z1', 0)
      expect((await rotate(sid, 'z0', 'zx', 0, { graceMs: 0 })).status).toBe('reused')
      expect(await t.store.findSession(sid)).toBeNull()
    })

    it('expires a session past its idle or absolute lifetime', async () => {
      const idle = await newSession((await newUser()).id, 'i0')
      expect((await rotate(idle, 'i0', 'i1', 30 * DAY)).status).toBe('expired')
      expect(await t.store.findSession(idle)).toBeNull()

      const long = await newSession((await newUser()).id, 'a0')
      let current = 'a0'
      for (let day = 20; day < 90; day += 20) {
        expect((await rotate(long, current, `a${day}`, day * DAY)).status).toBe('rotated')
        current = `a${day}`
      }
      expect((await rotate(long, current, 'a-late', 90 * DAY)).status).toBe('expired')
    })

    it('answers unknown for a session that does not exist', async () => {
      expect((await rotate(crypto.randomUUID(), 'never-issued', 'n1', 0)).status).toBe('unknown')
      expect((await rotate(null, 'never-issued', 'n1', 0)).status).toBe('unknown')
    })

    it('trims a user to the most recently used sessions, and answers the ids it deleted', async () => {
      const user = await newUser()
      const other = await newUser()
      // Created in order, then the oldest is refreshed last: it becomes the most recently used.
      const ids = []
      for (let i = 0; i < 5; i++) ids.push(await newSession(user.id, `t${i}`, at(i * 1000)))
      const [first, second, third, fourth, fifth] = ids as [string, string, string, string, string]
      expect(await t.store.swapRefresh({ sessionId: first, from: 't0', to: 't0b', keyHash: SESSION_KEY, now: at(9000) })).toBe(
        true,
      )
      const theirs = await newSession(other.id, 'theirs', T0)

      expect(await t.store.trimSessions(user.id, 5)).toEqual([])
      expect((await t.store.trimSessions(user.id, 3)).sort()).toEqual([second, third].sort())
      const left = (await t.store.listSessions(user.id)).map((s) => s.id).sort()
      expect(left).toEqual([first, fourth, fifth].sort())
      expect(await t.store.findSession(theirs)).not.toBeNull()
      expect(await t.store.trimSessions(user.id, 1)).toHaveLength(2)
      expect((await t.store.listSessions(user.id)).map((s) => s.id)).toEqual([first])
    })

    it('of 20 concurrent sign-ins past the limit, leaves the user at most the limit', async () => {
      const user = await newUser()
      for (let i = 0; i < 3; i++) await newSession(user.id, `old${i}`, at(i))
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await newSession(user.id, `new${i}`, at(1000 + i))
          await t.store.trimSessions(user.id, 5)
        }),
      )
      expect((await t.store.listSessions(user.id)).length).toBeLessThanOrEqual(5)
    })

    it('lets exactly one of 20 concurrent rotations of one value win, and keeps the session', async () => {
      const sid = await newSession((await newUser()).id, 'c0')
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => rotate(sid, 'c0', `c1-${i}`, 1000)))
      expect(results.filter((r) => r.status === 'rotated')).toHaveLength(1)
      expect(results.filter((r) => r.status === 'race')).toHaveLength(19)
      expect(await t.store.findSession(sid)).not.toBeNull()
    })
  })
}
