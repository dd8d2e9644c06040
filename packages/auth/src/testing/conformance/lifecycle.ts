/**
 * The account lifecycle (docs/reference/lifecycle.md): email tokens (newest of a kind only, single use,
 * atomic with what they change), a session list without secrets, owner-bound session deletion,
 * and account deletion that takes everything of the user in one step.
 */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import { at, type Conformance, T0 } from './context.js'

export const lifecycleConformance = (t: Conformance) => {
  const { newUser, newSession } = t
  const token = (kind: 'verify-email' | 'change-email', userId: string, tokenHash: string, newEmail?: string) =>
    t.store.createEmailToken({ kind, userId, tokenHash, expiresAt: at(3_600_000), ...(newEmail ? { newEmail } : {}) })

  describe('email verification', () => {
    it('starts unverified; a token verifies once, and a newer token of the kind kills the earlier one', async () => {
      const user = await newUser()
      expect(user.emailVerified).toBe(false)
      await token('verify-email', user.id, 'v1')
      await token('verify-email', user.id, 'v2')
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'v1', now: T0 })).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'v2', now: T0 })).toBe(user.id)
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'v2', now: T0 })).toBeNull()
      expect((await t.store.findUserById(user.id))?.user.emailVerified).toBe(true)
      const session = await newSession(user.id)
      expect((await t.store.findSession(session))?.user.emailVerified).toBe(true)
    })

    it('refuses an expired token, a token of another kind and an unknown one, changing nothing', async () => {
      const user = await newUser()
      await token('verify-email', user.id, 'late')
      await token('change-email', user.id, 'other-kind', 'new@example.com')
      await t.store.createResetToken({ userId: user.id, tokenHash: 'reset', expiresAt: at(60_000) })
      expect(
        await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'late', now: at(3_600_000) }),
      ).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'other-kind', now: T0 })).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'reset', now: T0 })).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'nope', now: T0 })).toBeNull()
      expect((await t.store.findUserById(user.id))?.user.emailVerified).toBe(false)
      expect(
        (await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'other-kind', now: T0 }))
          .status,
      ).toBe('changed')
    })

    it('lets exactly one of 20 concurrent redemptions of one token win', async () => {
      const user = await newUser()
      await token('verify-email', user.id, 'race')
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'race', now: T0 }),
        ),
      )
      expect(results.filter((r) => r === user.id)).toHaveLength(1)
    })

    it('settles an unverified account on its first proof: revokes what it is handed, once, and names the sessions', async () => {
      const user = await newUser()
      const session = await newSession(user.id)
      await token('verify-email', user.id, 'settle')
      const settle = () =>
        t.store.settleEmailVerification({ revoke: accountEvents['email-verification-settled'], tokenHash: 'settle', now: T0 })
      expect(await settle()).toEqual({ userId: user.id, settled: true, revokedSessionIds: [session] })
      expect(await settle()).toBeNull()
      const found = await t.store.findUserById(user.id)
      expect(found).toMatchObject({ user: { emailVerified: true }, passwordHash: null, credentialsVersion: 1 })
      expect(await t.store.findSession(session)).toBeNull()
    })

    it('leaves an account verified meanwhile as it is: its password and sessions stay', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 'proved', expiresAt: at(60_000) })
      await token('verify-email', user.id, 'late-link')
      await t.store.consumeResetToken({
        revoke: accountEvents['password-reset'],
        tokenHash: 'proved',
        now: T0,
        passwordHash: 'new',
      })
      // A session opened after the reset, at the version it left.
      const session = crypto.randomUUID()
      await t.store.createSession({ id: session, userId: user.id, refreshHash: session, now: T0, credentialsVersion: 1 })
      expect(
        await t.store.settleEmailVerification({
          revoke: accountEvents['email-verification-settled'],
          tokenHash: 'late-link',
          now: T0,
        }),
      ).toEqual({ userId: user.id, settled: false, revokedSessionIds: [] })
      expect(await t.store.findUserById(user.id)).toMatchObject({ passwordHash: 'new', credentialsVersion: 1 })
      expect(await t.store.findSession(session)).not.toBeNull()
    })

    it('settles with one of 20 concurrent redemptions of one token, and refuses a dead one', async () => {
      const user = await newUser()
      await token('verify-email', user.id, 'settle-race')
      await token('change-email', user.id, 'settle-kind', `k-${user.id}@example.com`)
      const revoke = accountEvents['email-verification-settled']
      expect(await t.store.settleEmailVerification({ revoke, tokenHash: 'settle-kind', now: T0 })).toBeNull()
      expect(await t.store.settleEmailVerification({ revoke, tokenHash: 'settle-race', now: at(3_600_000) })).toBeNull()
      expect(await t.store.findUserById(user.id)).toMatchObject({ user: { emailVerified: false }, passwordHash: 'hash-1' })
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.store.settleEmailVerification({ revoke, tokenHash: 'settle-race', now: T0 })),
      )
      expect(results.filter((r) => r !== null)).toEqual([{ userId: user.id, settled: true, revokedSessionIds: [] }])
    })

    it("finds a live token's owner by kind without spending it (the rate limit's key)", async () => {
      const user = await newUser()
      await token('verify-email', user.id, 'find-v')
      const owner = { userId: user.id, email: user.email }
      expect(await t.store.findEmailToken('find-v', 'verify-email', T0)).toEqual(owner)
      expect(await t.store.findEmailToken('find-v', 'verify-email', T0)).toEqual(owner)
      expect(await t.store.findEmailToken('find-v', 'change-email', T0)).toBeNull()
      expect(await t.store.findEmailToken('find-v', 'verify-email', at(3_600_000))).toBeNull()
      expect(await t.store.findEmailToken('nope', 'verify-email', T0)).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'find-v', now: T0 })).toBe(user.id)
      expect(await t.store.findEmailToken('find-v', 'verify-email', T0)).toBeNull()
    })

    it('is also set by redeeming a reset token', async () => {
      const user = await newUser()
      await t.store.createResetToken({ userId: user.id, tokenHash: 'r', expiresAt: at(60_000) })
      await t.store.consumeResetToken({ revoke: accountEvents['password-reset'], tokenHash: 'r', now: T0, passwordHash: 'new' })
      expect((await t.store.findUserById(user.id))?.user.emailVerified).toBe(true)
    })
  })

  describe('email change', () => {
    it('swaps the address (verified), bumps the version, ends every session and kills unused tokens', async () => {
      const user = await newUser('old@example.com')
      const session = await newSession(user.id)
      await t.store.createResetToken({ userId: user.id, tokenHash: 'reset', expiresAt: at(60_000) })
      await token('verify-email', user.id, 'verify')
      await token('change-email', user.id, 'change', 'new@example.com')
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'change', now: T0 }),
      ).toEqual({
        status: 'changed',
        userId: user.id,
        oldEmail: 'old@example.com',
        newEmail: 'new@example.com',
      })
      const found = await t.store.findUserByEmail('new@example.com')
      expect(found).toMatchObject({ user: { id: user.id, email: 'new@example.com', emailVerified: true }, credentialsVersion: 1 })
      expect(await t.store.findUserByEmail('old@example.com')).toBeNull()
      expect(await t.store.findSession(session)).toBeNull()
      expect(await t.store.findResetToken('reset', T0)).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'verify', now: T0 })).toBeNull()
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'change', now: T0 }),
      ).toEqual({ status: 'invalid' })
    })

    it('dies with a new password, changed or reset (a pending change made with a stolen password); verification stays', async () => {
      const changed = await newUser()
      await token('change-email', changed.id, 'pending-a', `a-${changed.id}@example.com`)
      await token('verify-email', changed.id, 'verify-a')
      expect(
        await t.store.replacePassword({
          revoke: accountEvents['password-changed'],
          userId: changed.id,
          passwordHash: 'new',
          credentialsVersion: 0,
          keepSessionId: null,
        }),
      ).toBe(true)
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'pending-a', now: T0 }),
      ).toEqual({ status: 'invalid' })
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'verify-a', now: T0 })).toBe(
        changed.id,
      )

      const reset = await newUser()
      await token('change-email', reset.id, 'pending-b', `b-${reset.id}@example.com`)
      await t.store.createResetToken({ userId: reset.id, tokenHash: 'reset-b', expiresAt: at(60_000) })
      expect(
        await t.store.consumeResetToken({
          revoke: accountEvents['password-reset'],
          tokenHash: 'reset-b',
          now: T0,
          passwordHash: 'new',
        }),
      ).toBe(reset.id)
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'pending-b', now: T0 }),
      ).toEqual({ status: 'invalid' })
    })

    it('answers taken, spending the token and changing nothing, when another account holds the address', async () => {
      const user = await newUser('mine@example.com')
      await token('change-email', user.id, 'change', 'theirs@example.com')
      await newUser('theirs@example.com')
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'change', now: T0 }),
      ).toEqual({ status: 'taken', userId: user.id })
      expect((await t.store.findUserById(user.id))?.user.email).toBe('mine@example.com')
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'change', now: T0 }),
      ).toEqual({ status: 'invalid' })
    })

    it('refuses a verification token, an expired one and an unknown one', async () => {
      const user = await newUser()
      await token('verify-email', user.id, 'verify')
      await token('change-email', user.id, 'late', 'late@example.com')
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'verify', now: T0 }),
      ).toEqual({ status: 'invalid' })
      expect(
        await t.store.confirmEmailChange({
          revoke: accountEvents['email-change-confirmed'],
          tokenHash: 'late',
          now: at(3_600_000),
        }),
      ).toEqual({ status: 'invalid' })
      expect(
        await t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'nope', now: T0 }),
      ).toEqual({ status: 'invalid' })
    })

    it('lets exactly one of 20 concurrent confirmations of one token win', async () => {
      const user = await newUser()
      await token('change-email', user.id, 'race', `race-${user.id}@example.com`)
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.store.confirmEmailChange({ revoke: accountEvents['email-change-confirmed'], tokenHash: 'race', now: T0 }),
        ),
      )
      expect(results.filter((r) => r.status === 'changed')).toHaveLength(1)
      expect(results.filter((r) => r.status !== 'invalid')).toHaveLength(1)
    })
  })

  describe('sessions of a user', () => {
    it('lists them with user agent and address, never a refresh hash', async () => {
      const user = await newUser()
      const other = await newUser()
      await t.store.createSession({
        id: 's-agent',
        userId: user.id,
        refreshHash: 'h1',
        now: T0,
        credentialsVersion: 0,
        userAgent: 'Mozilla/5.0',
        ip: '203.0.113.7',
      })
      await t.store.createSession({ id: 's-bare', userId: user.id, refreshHash: 'h2', now: at(1000), credentialsVersion: 0 })
      await newSession(other.id)
      const list = await t.store.listSessions(user.id)
      expect(list.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 's-agent', userId: user.id, createdAt: T0, refreshedAt: T0, userAgent: 'Mozilla/5.0', ip: '203.0.113.7' },
        { id: 's-bare', userId: user.id, createdAt: at(1000), refreshedAt: at(1000), userAgent: null, ip: null },
      ])
    })

    it("deletes one only for its owner, and all but one of a user's", async () => {
      const user = await newUser()
      const other = await newUser()
      const [a, b, c] = [await newSession(user.id), await newSession(user.id), await newSession(user.id)]
      const theirs = await newSession(other.id)
      expect(await t.store.deleteUserSession(user.id, theirs)).toBe(false)
      expect(await t.store.findSession(theirs)).not.toBeNull()
      expect(await t.store.deleteUserSession(user.id, a)).toBe(true)
      expect(await t.store.deleteUserSession(user.id, a)).toBe(false)
      expect(await t.store.deleteOtherSessions(user.id, b)).toEqual([c])
      expect(await t.store.findSession(b)).not.toBeNull()
      expect(await t.store.findSession(c)).toBeNull()
      expect(await t.store.findSession(theirs)).not.toBeNull()
    })
  })

  describe('account deletion', () => {
    it('deletes the user with every session and token, only while the version is current', async () => {
      const user = await newUser('gone@example.com')
      const session = await newSession(user.id)
      await t.store.createResetToken({ userId: user.id, tokenHash: 'reset', expiresAt: at(60_000) })
      await token('verify-email', user.id, 'verify')
      const bystander = await newUser()
      const theirs = await newSession(bystander.id)
      expect(await t.store.deleteUser(user.id, 1)).toBe(false)
      expect(await t.store.findUserById(user.id)).not.toBeNull()
      expect(await t.store.deleteUser(user.id, 0)).toBe(true)
      expect(await t.store.findUserById(user.id)).toBeNull()
      expect(await t.store.findUserByEmail('gone@example.com')).toBeNull()
      expect(await t.store.findSession(session)).toBeNull()
      expect(await t.store.findResetToken('reset', T0)).toBeNull()
      expect(await t.store.verifyEmail({ revoke: accountEvents['email-verified'], tokenHash: 'verify', now: T0 })).toBeNull()
      expect(await t.store.findSession(theirs)).not.toBeNull()
      expect(await t.store.deleteUser(user.id, 0)).toBe(false)
    })
  })
}
