/**
 * A session's last proof (docs/guide/step-up.md): recorded when it opens, read by the guard and by a
 * rotation, never moved by a rotation, and moved by a re-authentication only for the session's
 * owner while the password that was verified is current.
 */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import type { AuthMethod } from '../../store/types.js'
import { at, type Conformance, T0 } from './context.js'

export const authenticationConformance = (t: Conformance) => {
  const { newUser, newSession, rotate } = t
  describe('session authentication', () => {
    it('records when and how a session was opened; the guard lookup and a rotation read it', async () => {
      const user = await newUser()
      const plain = await newSession(user.id, 'plain-1')
      const id = crypto.randomUUID()
      const amr: AuthMethod[] = ['pwd', 'otp', 'mfa']
      expect(
        await t.store.createSession({
          id,
          userId: user.id,
          refreshHash: 'mfa-1',
          now: at(5_000),
          credentialsVersion: 0,
          amr,
        }),
      ).toBe(true)
      expect((await t.store.findSession(plain))?.session).toMatchObject({ authenticatedAt: T0, amr: ['pwd'] })
      expect((await t.store.findSession(id))?.session).toMatchObject({ authenticatedAt: at(5_000), amr })
      expect((await t.store.findRefresh({ sessionId: id }))?.session).toMatchObject({ authenticatedAt: at(5_000), amr })
      expect((await t.store.findRefresh({ currentHash: 'mfa-1' }))?.session).toMatchObject({ authenticatedAt: at(5_000), amr })
    })

    it('a rotation never moves it', async () => {
      const user = await newUser()
      const sid = await newSession(user.id, 'r-1')
      const rotated = await rotate(sid, 'r-1', 'r-2', 3_600_000)
      expect(rotated).toMatchObject({ status: 'rotated', session: { authenticatedAt: T0, amr: ['pwd'] } })
      expect((await t.store.findSession(sid))?.session).toMatchObject({
        authenticatedAt: T0,
        amr: ['pwd'],
        refreshedAt: at(3_600_000),
      })
    })

    it('a re-authentication moves it for the owner only, while the version is current, and leaves the refresh facts', async () => {
      const user = await newUser()
      const other = await newUser()
      const sid = await newSession(user.id, 'keep-1')
      const input = {
        sessionId: sid,
        userId: user.id,
        credentialsVersion: 0,
        at: at(60_000),
        amr: ['pwd', 'otp', 'mfa'] as AuthMethod[],
      }
      const reauth = (over: Partial<typeof input> = {}) => t.store.reauthenticate({ ...input, ...over })
      expect(await reauth({ userId: other.id })).toBe(false)
      expect(await reauth({ credentialsVersion: 1 })).toBe(false)
      expect(await reauth({ sessionId: crypto.randomUUID() })).toBe(false)
      expect((await t.store.findSession(sid))?.session).toMatchObject({ authenticatedAt: T0, amr: ['pwd'] })

      expect(await reauth()).toBe(true)
      const found = await t.store.findRefresh({ sessionId: sid })
      expect(found?.session).toMatchObject({
        authenticatedAt: at(60_000),
        amr: ['pwd', 'otp', 'mfa'],
        refreshHash: 'keep-1',
        refreshedAt: T0,
        createdAt: T0,
      })
      expect((await t.store.findSession(sid))?.session.authenticatedAt).toEqual(at(60_000))

      // After a password change the proof read before it counts for nothing.
      expect(
        await t.store.replacePassword({
          revoke: accountEvents['password-changed'],
          userId: user.id,
          passwordHash: 'hash-2',
          credentialsVersion: 0,
          keepSessionId: sid,
        }),
      ).toBe(true)
      expect(await reauth({ at: at(120_000) })).toBe(false)
      expect(await reauth({ at: at(120_000), credentialsVersion: 1, amr: ['pwd'] })).toBe(true)
      expect((await t.store.findSession(sid))?.session).toMatchObject({ authenticatedAt: at(120_000), amr: ['pwd'] })
    })
  })
}
