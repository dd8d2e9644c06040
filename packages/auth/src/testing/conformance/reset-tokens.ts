/** Reset tokens: newest only, single use, atomic with the password and the sessions. */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import { at, type Conformance, T0 } from './context.js'

export const resetTokensConformance = (t: Conformance) => {
  const { newUser, newSession } = t
  describe('reset tokens', () => {
    it('finds an unused unexpired token, and a new token kills the earlier one', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 't1', expiresAt: at(1800_000) })
      expect(await t.store.findResetToken('t1', T0)).toEqual({ userId: user.id, email: user.email })
      await t.store.createResetToken({ userId: user.id, tokenHash: 't2', expiresAt: at(1800_000) })
      expect(await t.store.findResetToken('t1', T0)).toBeNull()
      expect(await t.store.findResetToken('t2', T0)).not.toBeNull()
      expect(await t.store.findResetToken('t2', at(1800_000))).toBeNull()
    })

    it('consumes once: sets the password and deletes every session of the owner', async () => {
      const user = await newUser()
      const s1 = await newSession(user.id)
      const s2 = await newSession(user.id)
      await t.store.createResetToken({ userId: user.id, tokenHash: 'once', expiresAt: at(60_000) })
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'once',
          now: T0,
          passwordHash: 'new-hash',
        }),
      ).toBe(user.id)
      expect(await t.store.findUserById(user.id)).toMatchObject({ passwordHash: 'new-hash', credentialsVersion: 1 })
      expect(await t.store.findSession(s1)).toBeNull()
      expect(await t.store.findSession(s2)).toBeNull()
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'once',
          now: T0,
          passwordHash: 'again',
        }),
      ).toBeNull()
      expect(await t.store.findResetToken('once', T0)).toBeNull()
      expect((await t.store.findUserById(user.id))?.passwordHash).toBe('new-hash')
    })

    it('refuses an expired or unknown token and changes nothing', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 'old', expiresAt: at(60_000) })
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'old',
          now: at(60_000),
          passwordHash: 'x',
        }),
      ).toBeNull()
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'nope',
          now: T0,
          passwordHash: 'x',
        }),
      ).toBeNull()
      expect((await t.store.findUserById(user.id))?.passwordHash).toBe('hash-1')
    })

    it('lets exactly one of 20 concurrent redemptions of one token win', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 'race', expiresAt: at(60_000) })
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.store.consumeResetToken({
            revoke: accountEvents['password-reset'],
            tokenHash: 'race',
            now: T0,
            passwordHash: `p${i}`,
          }),
        ),
      )
      const winners = results.map((r, i) => (r ? i : -1)).filter((i) => i >= 0)
      expect(winners).toHaveLength(1)
      expect((await t.store.findUserById(user.id))?.passwordHash).toBe(`p${winners[0]}`)
    })
  })
}
