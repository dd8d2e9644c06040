/**
 * The second factor (docs/reference/two-factor.md): a pending key that a new setup replaces and an enabled one it
 * cannot; enabling atomically with its step, recovery codes, the credentials version and the other
 * sessions; the replay guard and single-use recovery codes under 20 concurrent callers; challenges
 * that one attempt at a time can claim and that die at the failure limit or expiry.
 */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../account-events.js'
import type { FirstFactor } from '../store/types.js'
import { at, type Conformance, DAY, T0 } from '../testing/conformance/context.js'

export const twoFactorConformance = (t: Conformance) => {
  const { newUser, newSession } = t
  const codes = (tag: string) => Array.from({ length: 10 }, (_, i) => `${tag}-${i}`)
  /** A user with an enabled factor (sealed `s1`, step 100) and recovery codes `rc-0` … `rc-9`. */
  const enabledUser = async () => {
    const user = await newUser()
    const keep = await newSession(user.id)
    expect(await t.store.setPendingTwoFactor(user.id, 's1', T0)).toBe(true)
    const revoked = await t.store.enableTwoFactor({
      revoke: accountEvents['two-factor-enabled'],
      userId: user.id,
      secret: 's1',
      step: 100,
      recoveryCodeHashes: codes(`rc-${user.id}`),
      keepSessionId: keep,
      now: T0,
    })
    expect(revoked).toEqual([])
    return { user, keep }
  }
  const race = <T>(n: number, f: () => Promise<T>) => Promise.all(Array.from({ length: n }, f))

  describe('second factor', () => {
    it('keeps a pending key until enabled; a new setup replaces it; an enabled one cannot be replaced', async () => {
      const user = await newUser()
      expect(await t.store.findTwoFactor(user.id)).toBeNull()
      expect(await t.store.setPendingTwoFactor(user.id, 'p1', T0)).toBe(true)
      expect(await t.store.setPendingTwoFactor(user.id, 'p2', at(1000))).toBe(true)
      expect(await t.store.findTwoFactor(user.id)).toEqual({
        secret: 'p2',
        enabledAt: null,
        lastStep: null,
        recoveryCodesLeft: 0,
      })
      const keep = await newSession(user.id)
      // Enabling names the key it checked: the replaced one no longer enables.
      const input = { userId: user.id, step: 7, recoveryCodeHashes: codes('a'), keepSessionId: keep, now: at(2000) }
      expect(await t.store.enableTwoFactor({ revoke: accountEvents['two-factor-enabled'], ...input, secret: 'p1' })).toBeNull()
      expect(await t.store.enableTwoFactor({ revoke: accountEvents['two-factor-enabled'], ...input, secret: 'p2' })).toEqual([])
      expect(await t.store.findTwoFactor(user.id)).toEqual({
        secret: 'p2',
        enabledAt: at(2000),
        lastStep: 7,
        recoveryCodesLeft: 10,
      })
      expect(await t.store.setPendingTwoFactor(user.id, 'p3', at(3000))).toBe(false)
      expect(
        await t.store.enableTwoFactor({ revoke: accountEvents['two-factor-enabled'], ...input, secret: 'p2', step: 8 }),
      ).toBeNull()
      expect((await t.store.findTwoFactor(user.id))?.secret).toBe('p2')
    })

    it('on enabling, bumps the credentials version and deletes every other session of the user only', async () => {
      const user = await newUser()
      const other = await newUser()
      const [keep, a, b] = [await newSession(user.id), await newSession(user.id), await newSession(user.id)]
      const theirs = await newSession(other.id)
      const before = (await t.store.findUserById(user.id))?.credentialsVersion ?? -1
      await t.store.setPendingTwoFactor(user.id, 's', T0)
      const revoked = await t.store.enableTwoFactor({
        revoke: accountEvents['two-factor-enabled'],
        userId: user.id,
        secret: 's',
        step: 1,
        recoveryCodeHashes: codes('b'),
        keepSessionId: keep,
        now: T0,
      })
      expect(revoked?.sort()).toEqual([a, b].sort())
      expect(await t.store.findSession(keep)).not.toBeNull()
      expect(await t.store.findSession(a)).toBeNull()
      expect(await t.store.findSession(theirs)).not.toBeNull()
      expect((await t.store.findUserById(user.id))?.credentialsVersion).toBe(before + 1)
      // A login that verified the password before the factor was on opens no session now.
      expect(
        await t.store.createSession({
          id: crypto.randomUUID(),
          userId: user.id,
          refreshHash: 'late',
          now: T0,
          credentialsVersion: before,
        }),
      ).toBe(false)
    })

    it('lets exactly one of 20 concurrent enables with one step win', async () => {
      const user = await newUser()
      const keep = await newSession(user.id)
      await t.store.setPendingTwoFactor(user.id, 's', T0)
      const results = await race(20, () =>
        t.store.enableTwoFactor({
          revoke: accountEvents['two-factor-enabled'],
          userId: user.id,
          secret: 's',
          step: 5,
          recoveryCodeHashes: codes(`c-${Math.random()}`),
          keepSessionId: keep,
          now: T0,
        }),
      )
      expect(results.filter((r) => r !== null)).toHaveLength(1)
      expect((await t.store.findTwoFactor(user.id))?.recoveryCodesLeft).toBe(10)
    })

    it('accepts each time step once and never an older one (the replay guard), also under 20 concurrent callers', async () => {
      const { user } = await enabledUser()
      expect(await t.store.useTotpStep(user.id, 100)).toBe(false)
      expect(await t.store.useTotpStep(user.id, 99)).toBe(false)
      expect((await race(20, () => t.store.useTotpStep(user.id, 101))).filter(Boolean)).toHaveLength(1)
      expect(await t.store.useTotpStep(user.id, 101)).toBe(false)
      expect(await t.store.useTotpStep(user.id, 103)).toBe(true)
      expect(await t.store.useTotpStep(user.id, 102)).toBe(false)
      expect((await t.store.findTwoFactor(user.id))?.lastStep).toBe(103)
      // Not for a pending factor, nor for a user without one.
      const pending = await newUser()
      await t.store.setPendingTwoFactor(pending.id, 'x', T0)
      expect(await t.store.useTotpStep(pending.id, 200)).toBe(false)
      expect(await t.store.useTotpStep((await newUser()).id, 200)).toBe(false)
    })

    it('spends a recovery code once, only for its owner, and exactly once under 20 concurrent callers', async () => {
      const { user } = await enabledUser()
      const other = await enabledUser()
      const hash = `rc-${user.id}-3`
      expect(await t.store.useRecoveryCode(other.user.id, hash, T0)).toBe(false)
      expect((await race(20, () => t.store.useRecoveryCode(user.id, hash, T0))).filter(Boolean)).toHaveLength(1)
      expect(await t.store.useRecoveryCode(user.id, hash, T0)).toBe(false)
      expect(await t.store.useRecoveryCode(user.id, 'unknown', T0)).toBe(false)
      expect((await t.store.findTwoFactor(user.id))?.recoveryCodesLeft).toBe(9)
    })

    it('replaces the recovery codes only while enabled; the old set dies', async () => {
      const { user } = await enabledUser()
      expect(await t.store.replaceRecoveryCodes(user.id, codes(`new-${user.id}`))).toBe(true)
      expect(await t.store.useRecoveryCode(user.id, `rc-${user.id}-0`, T0)).toBe(false)
      expect(await t.store.useRecoveryCode(user.id, `new-${user.id}-0`, T0)).toBe(true)
      expect((await t.store.findTwoFactor(user.id))?.recoveryCodesLeft).toBe(9)
      const pending = await newUser()
      await t.store.setPendingTwoFactor(pending.id, 'x', T0)
      expect(await t.store.replaceRecoveryCodes(pending.id, codes(`p-${pending.id}`))).toBe(false)
    })

    it('re-seals only while the sealed value is unchanged', async () => {
      const { user } = await enabledUser()
      expect(await t.store.resealTwoFactor(user.id, 'other', 's2')).toBe(false)
      expect(await t.store.resealTwoFactor(user.id, 's1', 's2')).toBe(true)
      expect((await t.store.findTwoFactor(user.id))?.secret).toBe('s2')
    })

    it('pages and counts the secrets not sealed under a key, by a plain prefix (no pattern)', async () => {
      const users = [await newUser(), await newUser(), await newUser(), await newUser()]
      // `_` and `%` are LIKE wildcards: a prefix compare must not treat them as such.
      const secrets = ['v2.key_A.iv.data', 'v2.keyXA.iv.data', 'v1.old.iv.data', 'v2.key_A.iv2.data2']
      for (const [i, user] of users.entries())
        expect(await t.store.setPendingTwoFactor(user.id, secrets[i] as string, T0)).toBe(true)
      expect(await t.store.countStaleSeals('v2.key_A.')).toBe(2)
      const mine = new Set(users.map((u) => u.id))
      const page = async (after: string | null, limit: number) =>
        (await t.store.staleSeals({ sealingPrefix: 'v2.key_A.', afterUserId: after, limit })).filter((r) => mine.has(r.userId))
      const all = await page(null, 100)
      expect(all.map((r) => r.secret).sort()).toEqual(['v1.old.iv.data', 'v2.keyXA.iv.data'])
      const ids = all.map((r) => r.userId)
      expect([...ids].sort()).toEqual(ids)
      const [first] = await t.store.staleSeals({ sealingPrefix: 'v2.key_A.', afterUserId: null, limit: 1 })
      const rest = await t.store.staleSeals({ sealingPrefix: 'v2.key_A.', afterUserId: first?.userId ?? null, limit: 100 })
      expect(rest.map((r) => r.userId)).not.toContain(first?.userId)
      expect(await t.store.countStaleSeals('v1.old.')).toBe(3)
    })

    it('deletes the factor with its recovery codes and challenges; the user and sessions stay', async () => {
      const { user, keep } = await enabledUser()
      await t.store.createChallenge({
        hash: `ch-${user.id}`,
        userId: user.id,
        credentialsVersion: 1,
        firstFactor: 'pwd',
        expiresAt: at(300_000),
      })
      expect(
        await t.store.deleteTwoFactor({ userId: user.id, keepSessionId: null, revoke: accountEvents['two-factor-disabled'] }),
      ).toBe(true)
      expect(await t.store.findTwoFactor(user.id)).toBeNull()
      expect(await t.store.findChallenge(`ch-${user.id}`, T0)).toBeNull()
      expect(await t.store.useRecoveryCode(user.id, `rc-${user.id}-0`, T0)).toBe(false)
      expect(await t.store.findSession(keep)).not.toBeNull()
      expect(
        await t.store.deleteTwoFactor({ userId: user.id, keepSessionId: null, revoke: accountEvents['two-factor-disabled'] }),
      ).toBe(false)
      // A new setup starts from nothing: no step is remembered.
      expect(await t.store.setPendingTwoFactor(user.id, 'again', T0)).toBe(true)
      expect((await t.store.findTwoFactor(user.id))?.lastStep).toBeNull()
    })

    it('goes with the user when the account is deleted', async () => {
      const { user } = await enabledUser()
      await t.store.createChallenge({
        hash: `gone-${user.id}`,
        userId: user.id,
        credentialsVersion: 1,
        firstFactor: 'pwd',
        expiresAt: at(300_000),
      })
      expect(await t.store.deleteUser(user.id, 1)).toBe(true)
      expect(await t.store.findTwoFactor(user.id)).toBeNull()
      expect(await t.store.findChallenge(`gone-${user.id}`, T0)).toBeNull()
    })
  })

  describe('login challenges', () => {
    const challenge = async (hash: string, expiresInMs = 300_000, firstFactor: FirstFactor = 'pwd') => {
      const user = await newUser()
      await t.store.createChallenge({ hash, userId: user.id, credentialsVersion: 3, firstFactor, expiresAt: at(expiresInMs) })
      return user
    }

    it('is claimed by its hash until it expires; a claim holds it; its owner is found, used or expired', async () => {
      const user = await challenge('c1')
      expect(await t.store.findChallenge('c1', T0)).toEqual({ userId: user.id })
      expect(await t.store.findChallenge('nope', T0)).toBeNull()
      expect(await t.store.claimChallenge('c1', T0, 5)).toEqual({ userId: user.id, credentialsVersion: 3, firstFactor: 'pwd' })
      expect(await t.store.claimChallenge('c1', T0, 5)).toBeNull()
      // Every answer to it still counts against its account.
      expect(await t.store.findChallenge('c1', T0)).toEqual({ userId: user.id })
      const late = await challenge('c2', 1000)
      expect(await t.store.claimChallenge('c2', at(1000), 5)).toBeNull()
      expect(await t.store.findChallenge('c2', at(1000))).toEqual({ userId: late.id })
    })

    it('remembers the first factor it follows', async () => {
      for (const firstFactor of ['pwd', 'email', 'hwk'] as const) {
        const user = await challenge(`first-${firstFactor}`, 300_000, firstFactor)
        expect(await t.store.claimChallenge(`first-${firstFactor}`, T0, 5)).toEqual({
          userId: user.id,
          credentialsVersion: 3,
          firstFactor,
        })
      }
    })

    it('lets exactly one of 20 concurrent claims win', async () => {
      await challenge('race')
      expect((await race(20, () => t.store.claimChallenge('race', T0, 5))).filter(Boolean)).toHaveLength(1)
    })

    it('is given back after each failure and dies at the failure limit', async () => {
      const user = await challenge('f')
      for (let i = 0; i < 4; i++) {
        expect(await t.store.claimChallenge('f', T0, 5)).toEqual({ userId: user.id, credentialsVersion: 3, firstFactor: 'pwd' })
        await t.store.failChallenge('f')
      }
      expect(await t.store.claimChallenge('f', T0, 5)).not.toBeNull()
      await t.store.failChallenge('f')
      expect(await t.store.claimChallenge('f', T0, 5)).toBeNull()
    })
  })

  describe('login challenges: the sweep', () => {
    const now = at(100 * DAY)
    const challengeOf = (userId: string, hash: string, expiresAt: Date) =>
      t.store.createChallenge({ hash, userId, credentialsVersion: 0, firstFactor: 'pwd', expiresAt })

    it('deletes used, expired and dead challenges and keeps the live one', async () => {
      const [a, b, c] = [await newUser(), await newUser(), await newUser()]
      await challengeOf(a.id, 'c-used', at(101 * DAY))
      expect(await t.store.claimChallenge('c-used', at(99 * DAY), 5)).not.toBeNull()
      await challengeOf(b.id, 'c-expired', now)
      await challengeOf(c.id, 'c-live', at(100 * DAY + 1))
      expect(await t.store.pruneChallenges(now, 100)).toBe(2)
      expect(await t.store.findChallenge('c-live', now)).toEqual({ userId: c.id })
      expect(await t.store.pruneChallenges(now, 100)).toBe(0)
    })

    it('deletes at most `limit` challenges per call', async () => {
      for (let i = 0; i < 5; i++) await challengeOf((await newUser()).id, `c-batch-${i}`, at(DAY))
      for (const left of [2, 2, 1, 0]) expect(await t.store.pruneChallenges(now, 2)).toBe(left)
    })
  })
}
