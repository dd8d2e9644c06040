/**
 * One conformance suite for every {@link Store}: the SQLite store runs it, so does PostgreSQL,
 * and so should yours. It checks what the store keeps and the atomicity of its conditional
 * steps (the refresh swap, single-use consumption) with 20 concurrent callers; the rotation
 * cases run the session core's rules over the store, as the routes do.
 *
 * @example
 * storeConformance('sqlite', async () => {
 *   const db = openSqlite(':memory:'); migrateSqlite(db)
 *   return { store: sqliteStore(db), close: async () => db.close() }
 * })
 */
import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type RotateRefreshInput, rotateRefresh } from '../session.js'
import type { Store, UserRecord } from '../store/types.js'

export type StoreFactory = () => Promise<{ store: Store<UserRecord>; close?: () => Promise<void> }>

const T0 = new Date('2026-11-21T10:00:00.000Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const DAY = 86_400_000
const lifetimes = { graceMs: 10_000, idleMs: 30 * DAY, absoluteMs: 90 * DAY }

export const storeConformance = (name: string, factory: StoreFactory): void => {
  describe(`Store conformance: ${name}`, () => {
    let store: Store<UserRecord>
    let close: (() => Promise<void>) | undefined

    beforeEach(async () => {
      ;({ store, close } = await factory())
    })
    afterEach(async () => {
      await close?.()
    })

    const newUser = async (email = `u-${randomUUID()}@example.com`) => {
      const user = await store.createUser({ id: randomUUID(), name: 'Ada', email, passwordHash: 'hash-1', createdAt: T0 })
      if (!user) throw new Error('createUser refused a fresh email')
      return user
    }
    const newSession = async (userId: string, refreshHash: string = randomUUID(), now = T0) => {
      const id = randomUUID()
      if (!(await store.createSession({ id, userId, refreshHash, now, credentialsVersion: 0 })))
        throw new Error('createSession refused a fresh user')
      return id
    }
    const rotate = (
      sessionId: string | null,
      hash: string,
      nextHash: string,
      ms: number,
      more: Partial<RotateRefreshInput> = {},
    ) => rotateRefresh(store, { sessionId, hash, nextHash, now: at(ms), ...lifetimes, ...more })

    describe('users', () => {
      it('creates a user and finds it by email and by id, with its hash', async () => {
        const user = await newUser('ada@example.com')
        expect(user).toMatchObject({ name: 'Ada', email: 'ada@example.com', role: null })
        expect(user.createdAt.getTime()).toBe(T0.getTime())
        expect(user).not.toHaveProperty('passwordHash')
        expect(await store.findUserByEmail('ada@example.com')).toEqual({ user, passwordHash: 'hash-1', credentialsVersion: 0 })
        expect(await store.findUserById(user.id)).toEqual({ user, passwordHash: 'hash-1', credentialsVersion: 0 })
      })

      it('answers null for a taken email and for unknown users', async () => {
        await newUser('taken@example.com')
        const again = await store.createUser({
          id: randomUUID(),
          name: 'B',
          email: 'taken@example.com',
          passwordHash: 'h',
          createdAt: T0,
        })
        expect(again).toBeNull()
        expect(await store.findUserByEmail('nobody@example.com')).toBeNull()
        expect(await store.findUserById(randomUUID())).toBeNull()
      })

      it('creates exactly one of 20 concurrent users with one email', async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            store.createUser({ id: randomUUID(), name: 'R', email: 'race@example.com', passwordHash: 'h', createdAt: T0 }),
          ),
        )
        expect(results.filter(Boolean)).toHaveLength(1)
      })

      it('updates the hash while the credentials version is current, and sets the role by email', async () => {
        const user = await newUser()
        expect(await store.updatePasswordHash(user.id, 'hash-2', 0)).toBe(true)
        expect(await store.findUserById(user.id)).toMatchObject({ passwordHash: 'hash-2', credentialsVersion: 0 })
        // A re-hash of a password that has been replaced meanwhile never overwrites the new one.
        expect(await store.updatePasswordHash(user.id, 'stale', 1)).toBe(false)
        expect((await store.findUserById(user.id))?.passwordHash).toBe('hash-2')
        expect(await store.setRole(user.email, 'admin')).toBe(true)
        expect((await store.findUserById(user.id))?.user.role).toBe('admin')
        expect(await store.setRole('nobody@example.com', 'admin')).toBe(false)
      })

      it('replaces the password and deletes every session but the kept one', async () => {
        const user = await newUser()
        const keep = await newSession(user.id)
        const other = await newSession(user.id)
        const stranger = await newSession((await newUser()).id)
        const replace = (passwordHash: string, credentialsVersion: number, keepSessionId: string | null) =>
          store.replacePassword({ userId: user.id, passwordHash, credentialsVersion, keepSessionId })
        expect(await replace('hash-3', 0, keep)).toBe(true)
        expect(await store.findUserById(user.id)).toMatchObject({ passwordHash: 'hash-3', credentialsVersion: 1 })
        expect(await store.findSession(keep)).not.toBeNull()
        expect(await store.findSession(other)).toBeNull()
        expect(await store.findSession(stranger)).not.toBeNull()
        expect(await replace('hash-4', 1, null)).toBe(true)
        expect(await store.findSession(keep)).toBeNull()
      })

      it('refuses a password change verified against a version that moved on, changing nothing', async () => {
        const user = await newUser()
        const sid = await newSession(user.id)
        expect(
          await store.replacePassword({ userId: user.id, passwordHash: 'h2', credentialsVersion: 0, keepSessionId: null }),
        ).toBe(true)
        const late = await newSession(user.id, randomUUID()).catch(() => null)
        expect(late).toBeNull()
        expect(
          await store.replacePassword({ userId: user.id, passwordHash: 'h3', credentialsVersion: 0, keepSessionId: null }),
        ).toBe(false)
        expect(await store.findUserById(user.id)).toMatchObject({ passwordHash: 'h2', credentialsVersion: 1 })
        expect(await store.findSession(sid)).toBeNull()
      })

      it('kills the unused reset tokens of the user when the password changes', async () => {
        const user = await newUser()
        await store.createResetToken({ userId: user.id, tokenHash: 'pending', expiresAt: at(60_000) })
        await store.replacePassword({ userId: user.id, passwordHash: 'h2', credentialsVersion: 0, keepSessionId: null })
        expect(await store.findResetToken('pending', T0)).toBeNull()
        expect(await store.consumeResetToken({ tokenHash: 'pending', now: T0, passwordHash: 'x' })).toBeNull()
        expect((await store.findUserById(user.id))?.passwordHash).toBe('h2')
      })
    })

    describe('sessions', () => {
      it('creates a session only while the credentials version it was given is current', async () => {
        const user = await newUser()
        const create = (credentialsVersion: number) =>
          store.createSession({ id: randomUUID(), userId: user.id, refreshHash: randomUUID(), now: T0, credentialsVersion })
        expect(await create(1)).toBe(false)
        expect(await create(0)).toBe(true)
        await store.createResetToken({ userId: user.id, tokenHash: 'bump', expiresAt: at(60_000) })
        await store.consumeResetToken({ tokenHash: 'bump', now: T0, passwordHash: 'new' })
        expect(await create(0)).toBe(false)
        expect(await create(1)).toBe(true)
        expect(
          await store.createSession({ id: randomUUID(), userId: randomUUID(), refreshHash: 'x', now: T0, credentialsVersion: 0 }),
        ).toBe(false)
      })

      it('of 20 logins racing a reset, none that read the old version keeps a session', async () => {
        const user = await newUser()
        await store.createResetToken({ userId: user.id, tokenHash: 'race-login', expiresAt: at(60_000) })
        const logins = Array.from({ length: 20 }, () => ({ id: randomUUID() }))
        await Promise.all([
          ...logins.map(({ id }) =>
            store.createSession({ id, userId: user.id, refreshHash: randomUUID(), now: T0, credentialsVersion: 0 }),
          ),
          store.consumeResetToken({ tokenHash: 'race-login', now: T0, passwordHash: 'after-reset' }),
        ])
        const alive = await Promise.all(logins.map(({ id }) => store.findSession(id)))
        expect(alive.filter(Boolean)).toEqual([])
      })

      it('finds a live session with its user as stored now, and forgets a deleted one', async () => {
        const user = await newUser()
        const sid = await newSession(user.id)
        await store.setRole(user.email, 'editor')
        const found = await store.findSession(sid)
        expect(found?.session).toMatchObject({ id: sid, userId: user.id })
        expect(found?.session.createdAt.getTime()).toBe(T0.getTime())
        expect(found?.user.role).toBe('editor')
        await store.deleteSession(sid)
        expect(await store.findSession(sid)).toBeNull()
        expect(await store.findSession(randomUUID())).toBeNull()
      })

      it('keeps the refresh facts of a session, found by its id or by its current hash', async () => {
        const user = await newUser()
        const sid = await newSession(user.id, 'h0')
        const facts = { id: sid, userId: user.id, refreshHash: 'h0', previousRefreshHash: null, rotatedAt: null }
        const byId = await store.findRefresh({ sessionId: sid })
        expect(byId?.session).toMatchObject(facts)
        expect(byId?.session.createdAt.getTime()).toBe(T0.getTime())
        expect(byId?.user).toEqual(user)
        expect((await store.findRefresh({ currentHash: 'h0' }))?.session).toMatchObject(facts)

        expect(await store.swapRefresh({ sessionId: sid, from: 'h0', to: 'h1', now: at(5000) })).toBe(true)
        const swapped = await store.findRefresh({ sessionId: sid })
        expect(swapped?.session).toMatchObject({ refreshHash: 'h1', previousRefreshHash: 'h0' })
        expect(swapped?.session.rotatedAt?.getTime()).toBe(at(5000).getTime())
        expect(swapped?.session.refreshedAt.getTime()).toBe(at(5000).getTime())
        expect(await store.findRefresh({ currentHash: 'h0' })).toBeNull()
        expect(await store.findRefresh({ sessionId: randomUUID() })).toBeNull()
      })

      it('swaps a refresh value only while it is current', async () => {
        const sid = await newSession((await newUser()).id, 'w0')
        expect(await store.swapRefresh({ sessionId: sid, from: 'w-other', to: 'w1', now: at(1) })).toBe(false)
        expect(await store.swapRefresh({ sessionId: randomUUID(), from: 'w0', to: 'w1', now: at(1) })).toBe(false)
        expect((await store.findRefresh({ sessionId: sid }))?.session.refreshHash).toBe('w0')
      })

      it('lets exactly one of 20 concurrent swaps of one value change the row', async () => {
        const sid = await newSession((await newUser()).id, 's0')
        const swaps = Array.from({ length: 20 }, (_, i) =>
          store.swapRefresh({ sessionId: sid, from: 's0', to: `s1-${i}`, now: at(1) }),
        )
        const won = (await Promise.all(swaps)).map((ok, i) => (ok ? i : -1)).filter((i) => i >= 0)
        expect(won).toHaveLength(1)
        expect((await store.findRefresh({ sessionId: sid }))?.session).toMatchObject({
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
        expect((await store.findSession(sid))?.session.refreshedAt.getTime()).toBe(at(2000).getTime())
      })

      it('finds a value issued without a session id by its hash, while it is current', async () => {
        const sid = await newSession((await newUser()).id, 'legacy0')
        const result = await rotate(null, 'legacy0', 'legacy1', 1000)
        expect(result.status).toBe('rotated')
        if (result.status === 'rotated') expect(result.session.id).toBe(sid)
        // A value that is no longer current cannot name its session: unknown, and nothing ends.
        expect((await rotate(null, 'legacy0', 'legacy-x', 60_000)).status).toBe('unknown')
        expect(await store.findSession(sid)).not.toBeNull()
      })

      it('refuses a just-replaced value inside the grace window without revoking', async () => {
        const sid = await newSession((await newUser()).id, 'g0')
        await rotate(sid, 'g0', 'g1', 0)
        expect((await rotate(sid, 'g0', 'gx', 9_999)).status).toBe('race')
        expect(await store.findSession(sid)).not.toBeNull()
        expect((await rotate(sid, 'g1', 'g2', 10_000)).status).toBe('rotated')
      })

      it('treats an older value after the window as reuse and deletes the whole session', async () => {
        const sid = await newSession((await newUser()).id, 'x0')
        await rotate(sid, 'x0', 'x1', 0)
        await rotate(sid, 'x1', 'x2', 20_000)
        expect((await rotate(sid, 'x0', 'xx', 40_000)).status).toBe('reused')
        expect(await store.findSession(sid)).toBeNull()
        expect((await rotate(sid, 'x2', 'x3', 40_001)).status).toBe('unknown')

        const other = await newSession((await newUser()).id, 'y0')
        await rotate(other, 'y0', 'y1', 0)
        expect((await rotate(other, 'y0', 'yx', 10_000)).status).toBe('reused')
        expect(await store.findSession(other)).toBeNull()
      })

      it('treats a value the session never had, under its id, as reuse', async () => {
        const sid = await newSession((await newUser()).id, 'f0')
        expect((await rotate(sid, 'forged', 'fx', 0)).status).toBe('reused')
        expect(await store.findSession(sid)).toBeNull()
      })

      it('with a zero grace window, any replaced value is reuse', async () => {
        const sid = await newSession((await newUser()).id, 'z0')
        await rotate(sid, 'z0', 'z1', 0)
        expect((await rotate(sid, 'z0', 'zx', 0, { graceMs: 0 })).status).toBe('reused')
        expect(await store.findSession(sid)).toBeNull()
      })

      it('expires a session past its idle or absolute lifetime', async () => {
        const idle = await newSession((await newUser()).id, 'i0')
        expect((await rotate(idle, 'i0', 'i1', 30 * DAY)).status).toBe('expired')
        expect(await store.findSession(idle)).toBeNull()

        const long = await newSession((await newUser()).id, 'a0')
        let current = 'a0'
        for (let day = 20; day < 90; day += 20) {
          expect((await rotate(long, current, `a${day}`, day * DAY)).status).toBe('rotated')
          current = `a${day}`
        }
        expect((await rotate(long, current, 'a-late', 90 * DAY)).status).toBe('expired')
      })

      it('answers unknown for a session that does not exist', async () => {
        expect((await rotate(randomUUID(), 'never-issued', 'n1', 0)).status).toBe('unknown')
        expect((await rotate(null, 'never-issued', 'n1', 0)).status).toBe('unknown')
      })

      it('lets exactly one of 20 concurrent rotations of one value win, and keeps the session', async () => {
        const sid = await newSession((await newUser()).id, 'c0')
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => rotate(sid, 'c0', `c1-${i}`, 1000)))
        expect(results.filter((r) => r.status === 'rotated')).toHaveLength(1)
        expect(results.filter((r) => r.status === 'race')).toHaveLength(19)
        expect(await store.findSession(sid)).not.toBeNull()
      })
    })

    describe('reset tokens', () => {
      it('finds an unused unexpired token, and a new token kills the earlier one', async () => {
        const user = await newUser()
        await store.createResetToken({ userId: user.id, tokenHash: 't1', expiresAt: at(1800_000) })
        expect(await store.findResetToken('t1', T0)).toEqual({ userId: user.id, email: user.email })
        await store.createResetToken({ userId: user.id, tokenHash: 't2', expiresAt: at(1800_000) })
        expect(await store.findResetToken('t1', T0)).toBeNull()
        expect(await store.findResetToken('t2', T0)).not.toBeNull()
        expect(await store.findResetToken('t2', at(1800_000))).toBeNull()
      })

      it('consumes once: sets the password and deletes every session of the owner', async () => {
        const user = await newUser()
        const s1 = await newSession(user.id)
        const s2 = await newSession(user.id)
        await store.createResetToken({ userId: user.id, tokenHash: 'once', expiresAt: at(60_000) })
        expect(await store.consumeResetToken({ tokenHash: 'once', now: T0, passwordHash: 'new-hash' })).toBe(user.id)
        expect(await store.findUserById(user.id)).toMatchObject({ passwordHash: 'new-hash', credentialsVersion: 1 })
        expect(await store.findSession(s1)).toBeNull()
        expect(await store.findSession(s2)).toBeNull()
        expect(await store.consumeResetToken({ tokenHash: 'once', now: T0, passwordHash: 'again' })).toBeNull()
        expect(await store.findResetToken('once', T0)).toBeNull()
        expect((await store.findUserById(user.id))?.passwordHash).toBe('new-hash')
      })

      it('refuses an expired or unknown token and changes nothing', async () => {
        const user = await newUser()
        await store.createResetToken({ userId: user.id, tokenHash: 'old', expiresAt: at(60_000) })
        expect(await store.consumeResetToken({ tokenHash: 'old', now: at(60_000), passwordHash: 'x' })).toBeNull()
        expect(await store.consumeResetToken({ tokenHash: 'nope', now: T0, passwordHash: 'x' })).toBeNull()
        expect((await store.findUserById(user.id))?.passwordHash).toBe('hash-1')
      })

      it('lets exactly one of 20 concurrent redemptions of one token win', async () => {
        const user = await newUser()
        await store.createResetToken({ userId: user.id, tokenHash: 'race', expiresAt: at(60_000) })
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.consumeResetToken({ tokenHash: 'race', now: T0, passwordHash: `p${i}` })),
        )
        const winners = results.map((r, i) => (r ? i : -1)).filter((i) => i >= 0)
        expect(winners).toHaveLength(1)
        expect((await store.findUserById(user.id))?.passwordHash).toBe(`p${winners[0]}`)
      })
    })
  })
}
