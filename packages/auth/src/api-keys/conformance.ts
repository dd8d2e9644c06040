/**
 * API keys (docs/guide/api-keys.md): kept by hash with their owner as stored now, listed newest
 * first without the hash, deleted only by their owner, at most `max` unexpired per account under
 * 20 concurrent creations, `lastUsedAt` written once by concurrent uses, and every key of an
 * account revoked at once.
 */
import { describe, expect, it } from 'vitest'
import { at, type Conformance, DAY, T0 } from '../testing/conformance/context.js'
import type { NewApiKey } from './store.js'

export const apiKeysConformance = (t: Conformance) => {
  const { newUser } = t
  const key = (userId: string, more: Partial<NewApiKey> = {}): NewApiKey => {
    const id = crypto.randomUUID()
    return {
      id,
      userId,
      name: 'CI',
      hash: `hash-${id}`,
      prefix: 'lk_abcdefghi',
      scopes: ['todos:read', 'todos:write'],
      createdAt: T0,
      expiresAt: at(90 * DAY),
      ...more,
    }
  }

  describe('API keys', () => {
    it('finds a key by its hash with its user, lists the owner’s newest first without the hash, deletes only the owner’s', async () => {
      const [ada, bob] = [await newUser(), await newUser()]
      const older = key(ada.id)
      const newer = key(ada.id, { createdAt: at(1000), name: 'Agent', scopes: ['todos:read'] })
      expect(await t.store.createApiKey(older, 50, T0)).toBe(true)
      expect(await t.store.createApiKey(newer, 50, T0)).toBe(true)

      const found = await t.store.findApiKey(newer.hash)
      expect(found?.user).toMatchObject({ id: ada.id, email: ada.email })
      expect(found?.user).not.toHaveProperty('passwordHash')
      const { hash: _, ...record } = newer
      expect(found?.key).toEqual({ ...record, lastUsedAt: null })
      expect(await t.store.findApiKey('no-such-hash')).toBeNull()

      const list = await t.store.listApiKeys(ada.id)
      expect(list.map((k) => k.id)).toEqual([newer.id, older.id])
      expect(list[0]).not.toHaveProperty('hash')
      expect(await t.store.listApiKeys(bob.id)).toEqual([])

      expect(await t.store.deleteApiKey(bob.id, older.id)).toBe(false)
      expect(await t.store.deleteApiKey(ada.id, older.id)).toBe(true)
      expect(await t.store.deleteApiKey(ada.id, older.id)).toBe(false)
      expect(await t.store.findApiKey(older.hash)).toBeNull()
    })

    it('stores at most `max` unexpired keys per account, also under 20 concurrent creations; expired ones do not count', async () => {
      const ada = await newUser()
      await t.store.createApiKey(key(ada.id, { expiresAt: at(-1) }), 3, T0)
      for (let i = 0; i < 2; i++) expect(await t.store.createApiKey(key(ada.id), 3, T0)).toBe(true)
      const results = await Promise.all(Array.from({ length: 20 }, () => t.store.createApiKey(key(ada.id), 3, T0)))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect(await t.store.listApiKeys(ada.id)).toHaveLength(4)
      expect(await t.store.createApiKey(key(ada.id), 3, T0)).toBe(false)
    })

    it('writes lastUsedAt only when it is not later than `since`: once for 20 concurrent uses', async () => {
      const ada = await newUser()
      const k = key(ada.id)
      await t.store.createApiKey(k, 50, T0)
      const results = await Promise.all(Array.from({ length: 20 }, () => t.store.touchApiKey(k.id, at(1000), at(-60_000))))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect((await t.store.findApiKey(k.hash))?.key.lastUsedAt).toEqual(at(1000))
      expect(await t.store.touchApiKey(k.id, at(30_000), at(-30_000))).toBe(false)
      expect(await t.store.touchApiKey(k.id, at(61_000), at(1000))).toBe(true)
    })

    it('revokes every key of an account at once, and no one else’s', async () => {
      const [ada, bob] = [await newUser(), await newUser()]
      const keys = [key(ada.id), key(ada.id), key(bob.id)]
      for (const k of keys) await t.store.createApiKey(k, 50, T0)
      expect(await t.store.revokeApiKeys(ada.id)).toBe(2)
      expect(await t.store.listApiKeys(ada.id)).toEqual([])
      expect(await t.store.findApiKey(keys[2]?.hash ?? '')).not.toBeNull()
    })

    it('deletes the keys with the account', async () => {
      const ada = await newUser()
      const k = key(ada.id)
      await t.store.createApiKey(k, 50, T0)
      const found = await t.store.findUserById(ada.id)
      expect(await t.store.deleteUser(ada.id, found?.credentialsVersion ?? 0)).toBe(true)
      expect(await t.store.findApiKey(k.hash)).toBeNull()
    })
  })

  describe('API keys: the sweep', () => {
    it('deletes keys expired at or before the cutoff; a key expired since stays listed, a live one works', async () => {
      const [a, b] = [await newUser(), await newUser()]
      // At day 100, with the core's 30 days of grace: keys expired by day 70 go.
      const cutoff = at(70 * DAY)
      const long = key(a.id, { name: 'long-expired', expiresAt: at(40 * DAY) })
      const edge = key(a.id, { name: 'on-the-edge', expiresAt: at(70 * DAY) })
      const lately = key(a.id, { name: 'lately-expired', expiresAt: at(70 * DAY + 1) })
      const live = key(b.id, { name: 'live', expiresAt: at(101 * DAY) })
      for (const k of [long, edge, lately, live]) expect(await t.store.createApiKey(k, 50, T0)).toBe(true)

      expect(await t.store.pruneApiKeys(cutoff, 100)).toBe(2)
      expect(await t.store.findApiKey(long.hash)).toBeNull()
      expect(await t.store.findApiKey(edge.hash)).toBeNull()
      expect((await t.store.listApiKeys(a.id)).map((k) => k.id)).toEqual([lately.id])
      expect((await t.store.findApiKey(live.hash))?.key.id).toBe(live.id)
      expect(await t.store.pruneApiKeys(cutoff, 100)).toBe(0)
    })

    it('deletes at most `limit` keys per call', async () => {
      const user = await newUser()
      for (let i = 0; i < 5; i++) expect(await t.store.createApiKey(key(user.id, { expiresAt: at(DAY) }), 50, T0)).toBe(true)
      for (const left of [2, 2, 1, 0]) expect(await t.store.pruneApiKeys(at(70 * DAY), 2)).toBe(left)
    })
  })
}
