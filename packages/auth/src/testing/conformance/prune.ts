/**
 * Pruning the core's tables: dead sessions, spent tokens, expired add-credential codes and
 * forgotten devices go, in batches of at most `limit`; live rows stay. Each feature's sweep is in
 * its folder's conformance file.
 */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import { at, type Conformance, DAY, SESSION_KEY, T0 } from './context.js'

/** What a prune answers when it deleted nothing. */
const NONE = {
  sessions: 0,
  resetTokens: 0,
  emailTokens: 0,
  addCredentialCodes: 0,
  devices: 0,
}

export const pruneConformance = (t: Conformance) => {
  const { newUser, newSession } = t
  // The session core's cutoffs for lifetimes of 30 days idle and 90 days absolute, at day 100.
  const now = at(100 * DAY)
  const cutoffs = {
    deadIfRefreshedBy: at(70 * DAY),
    deadIfCreatedBy: at(10 * DAY),
    now,
    forgetDevicesSeenBy: at(50 * DAY),
  }

  describe('prune', () => {
    it('deletes sessions past either cutoff and keeps the live ones', async () => {
      const user = await newUser()
      const idle = await newSession(user.id, 'p-idle', at(20 * DAY))
      const old = await newSession(user.id, 'p-old', T0)
      // Created before the absolute cutoff but refreshed lately: still dead.
      await t.store.swapRefresh({ sessionId: old, from: 'p-old', to: 'p-old-2', keyHash: SESSION_KEY, now: at(95 * DAY) })
      const onTheEdge = await newSession(user.id, 'p-edge', at(70 * DAY))
      const live = await newSession(user.id, 'p-live', at(71 * DAY))

      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, sessions: 3 })
      for (const dead of [idle, old, onTheEdge]) expect(await t.store.findSession(dead)).toBeNull()
      expect(await t.store.findSession(live)).not.toBeNull()
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual(NONE)
    })

    it('deletes used and expired reset tokens and keeps the one that can still be redeemed', async () => {
      const [a, b, c] = [await newUser(), await newUser(), await newUser()]
      await t.store.createResetToken({ userId: a.id, tokenHash: 'used', expiresAt: at(101 * DAY) })
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'used',
          now: at(99 * DAY),
          passwordHash: 'h',
        }),
      ).toBe(a.id)
      await t.store.createResetToken({ userId: b.id, tokenHash: 'expired', expiresAt: now })
      await t.store.createResetToken({ userId: c.id, tokenHash: 'live', expiresAt: at(100 * DAY + 1) })

      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, resetTokens: 2 })
      expect(await t.store.findResetToken('live', now)).toEqual({ userId: c.id, email: c.email })
    })

    it('deletes used and expired email tokens and keeps the ones that can still be redeemed', async () => {
      const [a, b, c] = [await newUser(), await newUser(), await newUser()]
      const mail = (userId: string, tokenHash: string, expiresAt: Date, kind: 'verify-email' | 'change-email' = 'verify-email') =>
        t.store.createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail: `${tokenHash}@example.com` })
      await mail(a.id, 'used', at(101 * DAY))
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'used', now: at(99 * DAY) })).toBe(
        a.id,
      )
      await mail(b.id, 'expired', now, 'change-email')
      await mail(c.id, 'live', at(100 * DAY + 1))
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, emailTokens: 2 })
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'live', now })).toBe(c.id)
    })

    it('deletes expired add-credential codes and keeps the live one', async () => {
      const [a, b] = [await newUser(), await newUser()]
      await t.store.createAddCredentialCode({ userId: a.id, codeHash: 'expired', expiresAt: now })
      await t.store.createAddCredentialCode({ userId: b.id, codeHash: 'live', expiresAt: at(100 * DAY + 1) })
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, addCredentialCodes: 1 })
      expect(await t.store.spendAddCredentialCode({ userId: b.id, codeHash: 'live', now, maxFailures: 5 })).toBe(true)
    })

    it('deletes at most `limit` rows of each kind per call', async () => {
      const user = await newUser()
      for (let i = 0; i < 5; i++) {
        await newSession(user.id, `p-batch-${i}`, T0)
        // One user each: a user's new reset token may take the place of the last.
        await t.store.createResetToken({ userId: (await newUser()).id, tokenHash: `r-batch-${i}`, expiresAt: at(DAY) })
      }
      for (const left of [2, 2, 1, 0])
        expect(await t.store.prune({ ...cutoffs, limit: 2 })).toEqual({ ...NONE, sessions: left, resetTokens: left })
    })
  })
}
