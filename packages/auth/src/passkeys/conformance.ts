/**
 * Passkeys (docs/reference/passkeys.md): credentials kept per user, renamed and removed only by
 * their owner, never the last way to sign in; a signature counter that only moves forward; and
 * WebAuthn challenges claimed once, by purpose, until they expire, under 20 concurrent callers.
 */
import { describe, expect, it } from 'vitest'
import { at, type Conformance, DAY, T0 } from '../testing/conformance/context.js'
import type { NewPasskey, PasskeyChallengePurpose } from './store.js'

export const passkeysConformance = (t: Conformance) => {
  const { newUser } = t
  const race = <T>(n: number, f: () => Promise<T>) => Promise.all(Array.from({ length: n }, f))
  const passkey = (userId: string, more: Partial<NewPasskey> = {}): NewPasskey => ({
    id: `cred-${crypto.randomUUID()}`,
    userId,
    publicKey: 'pQECAyYgASFYIA',
    counter: 0,
    transports: ['internal', 'hybrid'],
    multiDevice: true,
    backedUp: true,
    name: 'Laptop',
    createdAt: T0,
    ...more,
  })
  /** A user whose only way to sign in is passkeys (an empty password hash). */
  const passwordless = async () => {
    const user = await t.store.createUser({
      id: crypto.randomUUID(),
      name: 'Ada',
      email: `p-${crypto.randomUUID()}@example.com`,
      passwordHash: '',
      createdAt: T0,
    })
    if (!user) throw new Error('createUser refused a fresh email')
    return user
  }

  describe('passkeys', () => {
    it('keeps a passkey as given, lists a user’s own oldest first, refuses a second one with the same id', async () => {
      const ada = await newUser()
      const bob = await newUser()
      const first = passkey(ada.id, { counter: 7 })
      const second = passkey(ada.id, { createdAt: at(1000), transports: [], multiDevice: false, backedUp: false })
      expect(await t.store.createPasskey(second)).toBe(true)
      expect(await t.store.createPasskey(first)).toBe(true)
      expect(await t.store.createPasskey(passkey(bob.id))).toBe(true)
      expect(await t.store.createPasskey({ ...first, userId: bob.id })).toBe(false)
      expect(await t.store.findPasskey(first.id)).toEqual({ ...first, lastUsedAt: null })
      expect(await t.store.findPasskey('unknown')).toBeNull()
      expect((await t.store.listPasskeys(ada.id)).map((p) => p.id)).toEqual([first.id, second.id])
      expect(await t.store.listPasskeys(ada.id)).toEqual([
        { ...first, lastUsedAt: null },
        { ...second, lastUsedAt: null },
      ])
    })

    it('renames and deletes only the owner’s passkey', async () => {
      const ada = await newUser()
      const bob = await newUser()
      const key = passkey(ada.id)
      await t.store.createPasskey(key)
      expect(await t.store.renamePasskey(bob.id, key.id, 'Stolen')).toBeNull()
      expect((await t.store.renamePasskey(ada.id, key.id, 'Phone'))?.name).toBe('Phone')
      expect(await t.store.deletePasskey(bob.id, key.id)).toBe('not_found')
      expect(await t.store.findPasskey(key.id)).not.toBeNull()
      // Ada has a password: her only passkey may go.
      expect(await t.store.deletePasskey(ada.id, key.id)).toBe('deleted')
      expect(await t.store.deletePasskey(ada.id, key.id)).toBe('not_found')
      expect(await t.store.listPasskeys(ada.id)).toEqual([])
    })

    it('never deletes the last way to sign in, even when two removals race', async () => {
      const ada = await passwordless()
      const a = passkey(ada.id)
      const b = passkey(ada.id)
      await t.store.createPasskey(a)
      await t.store.createPasskey(b)
      const outcomes = await Promise.all([t.store.deletePasskey(ada.id, a.id), t.store.deletePasskey(ada.id, b.id)])
      expect(outcomes.sort()).toEqual(['deleted', 'last_sign_in'])
      expect(await t.store.listPasskeys(ada.id)).toHaveLength(1)
      const [left] = await t.store.listPasskeys(ada.id)
      expect(await t.store.deletePasskey(ada.id, left?.id ?? '')).toBe('last_sign_in')
    })

    it('moves the counter only forward (0 stays 0 for an authenticator without one); of 20 uses with one counter, one wins', async () => {
      const ada = await newUser()
      const counted = passkey(ada.id, { counter: 5 })
      const uncounted = passkey(ada.id)
      await t.store.createPasskey(counted)
      await t.store.createPasskey(uncounted)
      expect(await t.store.usePasskey({ id: counted.id, counter: 5, backedUp: true, now: at(1) })).toBe(false)
      expect(await t.store.usePasskey({ id: counted.id, counter: 4, backedUp: true, now: at(1) })).toBe(false)
      expect(await t.store.findPasskey(counted.id)).toMatchObject({ counter: 5, lastUsedAt: null })
      const wins = await race(20, () => t.store.usePasskey({ id: counted.id, counter: 6, backedUp: false, now: at(2) }))
      expect(wins.filter(Boolean)).toHaveLength(1)
      expect(await t.store.findPasskey(counted.id)).toMatchObject({ counter: 6, backedUp: false, lastUsedAt: at(2) })
      // Counters beyond 32 bits are stored as they are.
      expect(await t.store.usePasskey({ id: counted.id, counter: 2 ** 32 - 1, backedUp: false, now: at(3) })).toBe(true)
      expect((await t.store.findPasskey(counted.id))?.counter).toBe(2 ** 32 - 1)
      expect(await t.store.usePasskey({ id: uncounted.id, counter: 0, backedUp: true, now: at(4) })).toBe(true)
      expect(await t.store.usePasskey({ id: uncounted.id, counter: 0, backedUp: true, now: at(5) })).toBe(true)
      expect(await t.store.findPasskey(uncounted.id)).toMatchObject({ counter: 0, lastUsedAt: at(5) })
      expect(await t.store.usePasskey({ id: 'unknown', counter: 9, backedUp: true, now: at(5) })).toBe(false)
    })

    it('reads and claims a challenge for its purpose before it expires, claims it once; of 20 concurrent claims one wins', async () => {
      const ada = await newUser()
      const expiresAt = at(300_000)
      await t.store.createPasskeyChallenge({ hash: 'h-login', purpose: 'login', userId: null, boundTo: null, expiresAt }, T0)
      await t.store.createPasskeyChallenge({ hash: 'h-reg', purpose: 'register', userId: ada.id, boundTo: null, expiresAt }, T0)
      await t.store.createPasskeyChallenge({ hash: 'h-2fa', purpose: 'two-factor', userId: ada.id, boundTo: 'c1', expiresAt }, T0)
      expect(await t.store.claimPasskeyChallenge('h-login', 'register', at(1))).toBeNull()
      // Reading one spends nothing.
      expect(await t.store.findPasskeyChallenge('h-reg', 'register', at(1))).toEqual({ userId: ada.id, boundTo: null })
      expect(await t.store.findPasskeyChallenge('h-reg', 'register', at(1))).toEqual({ userId: ada.id, boundTo: null })
      expect(await t.store.findPasskeyChallenge('h-reg', 'login', at(1))).toBeNull()
      expect(await t.store.findPasskeyChallenge('h-reg', 'register', expiresAt)).toBeNull()
      const claims = await race(20, () => t.store.claimPasskeyChallenge('h-login', 'login', at(1)))
      expect(claims.filter((c) => c !== null)).toEqual([{ userId: null, boundTo: null }])
      expect(await t.store.claimPasskeyChallenge('h-login', 'login', at(2))).toBeNull()
      expect(await t.store.findPasskeyChallenge('h-login', 'login', at(2))).toBeNull()
      expect(await t.store.claimPasskeyChallenge('h-reg', 'register', expiresAt)).toBeNull()
      expect(await t.store.claimPasskeyChallenge('h-2fa', 'two-factor', at(299_999))).toEqual({ userId: ada.id, boundTo: 'c1' })
      expect(await t.store.claimPasskeyChallenge('unknown', 'login', at(1))).toBeNull()
    })

    it('forgets used and expired challenges when a new one is stored, and a deleted user’s passkeys', async () => {
      const ada = await newUser()
      await t.store.createPasskey(passkey(ada.id))
      await t.store.createPasskeyChallenge({ hash: 'old', purpose: 'login', userId: null, boundTo: null, expiresAt: at(10) }, T0)
      await t.store.createPasskeyChallenge(
        { hash: 'live', purpose: 'login', userId: null, boundTo: null, expiresAt: at(600_000) },
        at(20),
      )
      // The expired one is gone: not even an earlier clock finds it.
      expect(await t.store.claimPasskeyChallenge('old', 'login', T0)).toBeNull()
      expect(await t.store.claimPasskeyChallenge('live', 'login', at(30))).not.toBeNull()
      expect(await t.store.deleteUser(ada.id, 0)).toBe(true)
      expect(await t.store.listPasskeys(ada.id)).toEqual([])
    })
  })

  describe('WebAuthn challenges: the sweep', () => {
    const now = at(100 * DAY)
    /** A challenge stored at T0, when none of them was dead: storing one clears the dead ones itself. */
    const ceremony = (hash: string, purpose: PasskeyChallengePurpose, userId: string | null, expiresAt: Date) =>
      t.store.createPasskeyChallenge(
        { hash, purpose, userId, boundTo: purpose === 'two-factor' ? 'c-login' : null, expiresAt },
        T0,
      )

    it('deletes used and expired challenges, abandoned ones too, and keeps the live ones', async () => {
      const ada = await newUser()
      await ceremony('w-used', 'login', null, at(101 * DAY))
      // Ceremonies begun and never answered, and no ceremony since.
      await ceremony('w-abandoned', 'register', ada.id, at(300_000))
      await ceremony('w-expired', 'two-factor', ada.id, now)
      await ceremony('w-live-login', 'login', null, at(100 * DAY + 1))
      await ceremony('w-live-register', 'register', ada.id, at(100 * DAY + 1))
      expect(await t.store.claimPasskeyChallenge('w-used', 'login', at(99 * DAY))).toEqual({ userId: null, boundTo: null })

      expect(await t.store.prunePasskeyChallenges(now, 100)).toBe(3)
      // Gone: not even a clock before they expired finds them.
      expect(await t.store.findPasskeyChallenge('w-abandoned', 'register', T0)).toBeNull()
      expect(await t.store.findPasskeyChallenge('w-expired', 'two-factor', T0)).toBeNull()
      expect(await t.store.findPasskeyChallenge('w-live-register', 'register', now)).toEqual({ userId: ada.id, boundTo: null })
      expect(await t.store.claimPasskeyChallenge('w-live-login', 'login', now)).toEqual({ userId: null, boundTo: null })
      // The one just claimed is spent: the next sweep takes it, and only it.
      expect(await t.store.prunePasskeyChallenges(now, 100)).toBe(1)
      expect(await t.store.findPasskeyChallenge('w-live-register', 'register', now)).toEqual({ userId: ada.id, boundTo: null })
      expect(await t.store.prunePasskeyChallenges(now, 100)).toBe(0)
    })

    it('deletes at most `limit` challenges per call', async () => {
      for (let i = 0; i < 5; i++) await ceremony(`w-batch-${i}`, 'login', null, at(DAY))
      for (const left of [2, 2, 1, 0]) expect(await t.store.prunePasskeyChallenges(now, 2)).toBe(left)
    })
  })
}
