/** Users: creation, lookups, the credentials version and roles. */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import { at, type Conformance, T0 } from './context.js'

export const usersConformance = (t: Conformance) => {
  /** A password change as the route makes it. */
  const changePassword = (userId: string, passwordHash: string, credentialsVersion: number, keepSessionId: string | null) =>
    t.store.replacePassword({
      userId,
      passwordHash,
      credentialsVersion,
      keepSessionId,
      revoke: accountEvents['password-changed'],
    })
  const { newUser, newSession } = t
  describe('users', () => {
    it('creates a user and finds it by email and by id, with its hash', async () => {
      const user = await newUser('ada@example.com')
      expect(user).toMatchObject({ name: 'Ada', email: 'ada@example.com', role: null })
      expect(user.createdAt.getTime()).toBe(T0.getTime())
      expect(user).not.toHaveProperty('passwordHash')
      expect(await t.store.findUserByEmail('ada@example.com')).toEqual({ user, passwordHash: 'hash-1', credentialsVersion: 0 })
      expect(await t.store.findUserById(user.id)).toEqual({ user, passwordHash: 'hash-1', credentialsVersion: 0 })
    })

    it('answers null for a taken email and for unknown users', async () => {
      await newUser('taken@example.com')
      const again = await t.store.createUser({
        id: crypto.randomUUID(),
        name: 'B',
        email: 'taken@example.com',
        passwordHash: 'h',
        createdAt: T0,
      })
      expect(again).toBeNull()
      expect(await t.store.findUserByEmail('nobody@example.com')).toBeNull()
      expect(await t.store.findUserById(crypto.randomUUID())).toBeNull()
    })

    it('creates exactly one of 20 concurrent users with one email', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.store.createUser({ id: crypto.randomUUID(), name: 'R', email: 'race@example.com', passwordHash: 'h', createdAt: T0 }),
        ),
      )
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('updates the hash while the credentials version is current, and sets the role by email', async () => {
      const user = await newUser()
      expect(await t.store.updatePasswordHash(user.id, 'hash-2', 0)).toBe(true)
      expect(await t.store.findUserById(user.id)).toMatchObject({ passwordHash: 'hash-2', credentialsVersion: 0 })
      // A re-hash of a password that has been replaced meanwhile never overwrites the new one.
      expect(await t.store.updatePasswordHash(user.id, 'stale', 1)).toBe(false)
      expect((await t.store.findUserById(user.id))?.passwordHash).toBe('hash-2')
      expect(await t.store.setRole(user.email, 'admin')).toBe(true)
      expect((await t.store.findUserById(user.id))?.user.role).toBe('admin')
      expect(await t.store.setRole('nobody@example.com', 'admin')).toBe(false)
    })

    it('replaces the password and deletes every session but the kept one', async () => {
      const user = await newUser()
      const keep = await newSession(user.id)
      const other = await newSession(user.id)
      const stranger = await newSession((await newUser()).id)
      const replace = (passwordHash: string, credentialsVersion: number, keepSessionId: string | null) =>
        t.store.replacePassword({
          revoke: accountEvents['password-changed'],
          userId: user.id,
          passwordHash,
          credentialsVersion,
          keepSessionId,
        })
      expect(await replace('hash-3', 0, keep)).toBe(true)
      expect(await t.store.findUserById(user.id)).toMatchObject({ passwordHash: 'hash-3', credentialsVersion: 1 })
      expect(await t.store.findSession(keep)).not.toBeNull()
      expect(await t.store.findSession(other)).toBeNull()
      expect(await t.store.findSession(stranger)).not.toBeNull()
      expect(await replace('hash-4', 1, null)).toBe(true)
      expect(await t.store.findSession(keep)).toBeNull()
    })

    it('refuses a password change verified against a version that moved on, changing nothing', async () => {
      const user = await newUser()
      const sid = await newSession(user.id)
      expect(await changePassword(user.id, 'h2', 0, null)).toBe(true)
      const late = await newSession(user.id, crypto.randomUUID()).catch(() => null)
      expect(late).toBeNull()
      expect(await changePassword(user.id, 'h3', 0, null)).toBe(false)
      expect(await t.store.findUserById(user.id)).toMatchObject({ passwordHash: 'h2', credentialsVersion: 1 })
      expect(await t.store.findSession(sid)).toBeNull()
    })

    it('kills the unused reset tokens of the user when the password changes', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 'pending', expiresAt: at(60_000) })
      await changePassword(user.id, 'h2', 0, null)
      expect(await t.store.findResetToken('pending', T0)).toBeNull()
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'pending',
          now: T0,
          passwordHash: 'x',
        }),
      ).toBeNull()
      expect((await t.store.findUserById(user.id))?.passwordHash).toBe('h2')
    })
  })
}
