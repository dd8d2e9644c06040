/**
 * The operators' facet: the search finds a prefix of the email or the name whatever its case,
 * newest first, a page at a time without skipping or repeating an account; an account's counts
 * are its own (live sessions only); disabling is a fact every read of the user carries.
 */
import { describe, expect, it } from 'vitest'
import { passkey } from '../testing/conformance/account-event-drivers.js'
import { at, type Conformance, DAY, T0 } from '../testing/conformance/context.js'

/** Cutoffs at T0 under which every session of the fixtures is live. */
const LIVE = { deadIfRefreshedBy: at(-DAY), deadIfCreatedBy: at(-DAY) }

export const adminConformance = (t: Conformance) => {
  describe('operators', () => {
    const create = async (email: string, name: string, ms: number) => {
      const user = await t.store.createUser({ id: crypto.randomUUID(), name, email, passwordHash: 'h', createdAt: at(ms) })
      if (!user) throw new Error('createUser refused a fresh email')
      return user
    }
    const search = (prefix: string | null, limit = 10, after: { createdAt: Date; id: string } | null = null) =>
      t.store.searchUsers({ prefix, after, limit, live: LIVE }).then((found) => found.map((f) => f.user.email))

    it('finds a prefix of the email or of the name, case-insensitively, newest first', async () => {
      await create('ada@example.com', 'Ada Lovelace', 1)
      await create('grace@example.com', 'Grace Hopper', 2)
      await create('alan@example.org', 'ADA fan club', 3)
      await create('ad%min_@example.com', 'Percent', 4)
      expect(await search('ada')).toEqual(['alan@example.org', 'ada@example.com'])
      expect(await search('gr')).toEqual(['grace@example.com'])
      expect(await search('grace hop')).toEqual(['grace@example.com'])
      expect(await search('example')).toEqual([])
      // No pattern characters: `%` and `_` are themselves.
      expect(await search('ad%')).toEqual(['ad%min_@example.com'])
      expect(await search('a_')).toEqual([])
      expect(await search(null)).toEqual(['ad%min_@example.com', 'alan@example.org', 'grace@example.com', 'ada@example.com'])
      expect(await search('zz')).toEqual([])
    })

    it('pages through accounts created in the same millisecond without skipping or repeating one', async () => {
      for (let i = 0; i < 7; i++) await create(`same-${i}@example.com`, `Same ${i}`, 0)
      const seen: string[] = []
      let after: { createdAt: Date; id: string } | null = null
      for (let page = 0; page < 5; page++) {
        const found = await t.store.searchUsers({ prefix: 'same', after, limit: 3, live: LIVE })
        seen.push(...found.map((f) => f.user.email))
        const last = found.at(-1)
        if (found.length < 3 || !last) break
        after = { createdAt: last.user.createdAt, id: last.user.id }
      }
      expect(seen).toHaveLength(7)
      expect(new Set(seen).size).toBe(7)
    })

    it('counts what is the account’s own: live sessions, passkeys, an enabled factor, the latest sign-in', async () => {
      const ada = await t.newUser()
      const bob = await t.newUser()
      await t.newSession(ada.id)
      await t.newSession(ada.id)
      await t.newSession(ada.id, undefined, at(-2 * DAY))
      await t.newSession(bob.id)
      await t.store.createPasskey(passkey(ada.id))
      await t.store.setPendingTwoFactor(ada.id, 'sealed', T0)
      expect(await t.store.findAdminUser(ada.id, LIVE)).toMatchObject({ twoFactor: false, lastSignInAt: null })
      await t.store.enableTwoFactor({
        userId: ada.id,
        secret: 'sealed',
        step: 1,
        recoveryCodeHashes: ['rc'],
        keepSessionId: 'none',
        now: T0,
        revoke: {},
      })
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-1', now: at(1000), keep: 50 })
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-2', now: at(5000), keep: 50 })
      const found = await t.store.findAdminUser(ada.id, LIVE)
      expect(found).toMatchObject({ sessions: 2, passkeys: 1, twoFactor: true, lastSignInAt: at(5000) })
      expect(found?.user).toMatchObject({ id: ada.id, email: ada.email, disabledAt: null })
      expect(found?.user).not.toHaveProperty('passwordHash')
      expect(await t.store.findAdminUser(bob.id, LIVE)).toMatchObject({ sessions: 1, passkeys: 0, twoFactor: false })
      expect(await t.store.findAdminUser('nobody', LIVE)).toBeNull()
    })

    it('disables and enables an account: every read of the user says so; an unknown account is none', async () => {
      const ada = await t.newUser()
      const session = await t.newSession(ada.id)
      const revoked = await t.store.setUserDisabled({ userId: ada.id, disabledAt: T0, revoke: { sessions: 'all' } })
      expect(revoked).toEqual([session])
      expect((await t.store.findUserByEmail(ada.email))?.user.disabledAt).toEqual(T0)
      expect((await t.store.findSession(session)) ?? null).toBeNull()
      expect(await t.store.setUserDisabled({ userId: ada.id, disabledAt: null, revoke: {} })).toEqual([])
      expect((await t.store.findUserById(ada.id))?.user.disabledAt).toBeNull()
      expect(await t.store.setUserDisabled({ userId: 'nobody', disabledAt: T0, revoke: { sessions: 'all' } })).toBeNull()
      expect(await t.store.markEmailVerified('nobody')).toBe(false)
      expect(await t.store.revokeUser('nobody', { sessions: 'all' })).toEqual([])
    })

    it('a session looked up after disabling carries the disabled user; one made before is gone', async () => {
      const ada = await t.newUser()
      await t.store.setUserDisabled({ userId: ada.id, disabledAt: T0, revoke: {} })
      const session = await t.newSession(ada.id)
      expect((await t.store.findSession(session))?.user.disabledAt).toEqual(T0)
    })
  })
}
