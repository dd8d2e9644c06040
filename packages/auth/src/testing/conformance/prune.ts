/**
 * Pruning: dead sessions, spent tokens, login and WebAuthn challenges and social sign-in flows, expired
 * add-credential codes and API keys past the cutoff go, in batches of at most `limit`; live rows
 * (and keys expired more recently than the cutoff, still listed) stay.
 */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../../account-events.js'
import type { NewApiKey } from '../../api-keys/store.js'
import type { NewOAuthFlow } from '../../oauth/store.js'
import type { PasskeyChallengePurpose } from '../../passkeys/store.js'
import { at, type Conformance, DAY, SESSION_KEY, T0 } from './context.js'

/** What a prune answers when it deleted nothing. */
const NONE = {
  sessions: 0,
  resetTokens: 0,
  emailTokens: 0,
  challenges: 0,
  addCredentialCodes: 0,
  devices: 0,
  apiKeys: 0,
  oauthFlows: 0,
  passkeyChallenges: 0,
}

export const pruneConformance = (t: Conformance) => {
  const { newUser, newSession } = t
  // The session core's cutoffs for lifetimes of 30 days idle and 90 days absolute, at day 100;
  // API keys expired 30 days ago or earlier go.
  const now = at(100 * DAY)
  const cutoffs = {
    deadIfRefreshedBy: at(70 * DAY),
    deadIfCreatedBy: at(10 * DAY),
    now,
    forgetDevicesSeenBy: at(50 * DAY),
    forgetApiKeysExpiredBy: at(70 * DAY),
  }
  const apiKey = (userId: string, name: string, expiresAt: Date): NewApiKey => ({
    id: crypto.randomUUID(),
    userId,
    name,
    hash: `hash-${name}-${crypto.randomUUID()}`,
    prefix: 'lk_abcdefghi',
    scopes: ['todos:read'],
    createdAt: T0,
    expiresAt,
  })
  const flow = (hash: string, expiresAt: Date): NewOAuthFlow => ({
    hash,
    provider: 'google',
    stateHash: `state-${hash}`,
    nonce: null,
    returnTo: '/',
    userId: null,
    sessionId: null,
    expiresAt,
  })
  /** A WebAuthn challenge stored at T0, when none of them was dead: storing one clears the dead ones itself. */
  const ceremony = (hash: string, purpose: PasskeyChallengePurpose, userId: string | null, expiresAt: Date) =>
    t.store.createPasskeyChallenge({ hash, purpose, userId, boundTo: purpose === 'two-factor' ? 'c-login' : null, expiresAt }, T0)

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

    it('deletes used, expired and dead challenges and keeps the live one', async () => {
      const [a, b, c] = [await newUser(), await newUser(), await newUser()]
      const challenge = (userId: string, hash: string, expiresAt: Date) =>
        t.store.createChallenge({ hash, userId, credentialsVersion: 0, firstFactor: 'pwd', expiresAt })
      await challenge(a.id, 'c-used', at(101 * DAY))
      expect(await t.store.claimChallenge('c-used', at(99 * DAY), 5)).not.toBeNull()
      await challenge(b.id, 'c-expired', now)
      await challenge(c.id, 'c-live', at(100 * DAY + 1))
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, challenges: 2 })
      expect(await t.store.findChallenge('c-live', now)).toEqual({ userId: c.id })
    })

    it('deletes expired add-credential codes and keeps the live one', async () => {
      const [a, b] = [await newUser(), await newUser()]
      await t.store.createAddCredentialCode({ userId: a.id, codeHash: 'expired', expiresAt: now })
      await t.store.createAddCredentialCode({ userId: b.id, codeHash: 'live', expiresAt: at(100 * DAY + 1) })
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, addCredentialCodes: 1 })
      expect(await t.store.spendAddCredentialCode({ userId: b.id, codeHash: 'live', now, maxFailures: 5 })).toBe(true)
    })

    it('deletes API keys expired at or before the cutoff; a key expired since stays listed, a live one works', async () => {
      const [a, b] = [await newUser(), await newUser()]
      const long = apiKey(a.id, 'long-expired', at(40 * DAY))
      const edge = apiKey(a.id, 'on-the-edge', at(70 * DAY))
      const lately = apiKey(a.id, 'lately-expired', at(70 * DAY + 1))
      const live = apiKey(b.id, 'live', at(101 * DAY))
      for (const key of [long, edge, lately, live]) expect(await t.store.createApiKey(key, 50, T0)).toBe(true)

      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, apiKeys: 2 })
      expect(await t.store.findApiKey(long.hash)).toBeNull()
      expect(await t.store.findApiKey(edge.hash)).toBeNull()
      expect((await t.store.listApiKeys(a.id)).map((k) => k.id)).toEqual([lately.id])
      expect((await t.store.findApiKey(live.hash))?.key.id).toBe(live.id)
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual(NONE)
    })

    it('deletes used and expired social sign-in flows and keeps the live one', async () => {
      // Stored at T0, when none of them was dead: storing a flow clears the dead ones itself.
      for (const [hash, expiresAt] of [
        ['f-used', at(101 * DAY)],
        ['f-expired', now],
        ['f-live', at(100 * DAY + 1)],
      ] as const)
        await t.store.createOAuthFlow(flow(hash, expiresAt), T0)
      expect(await t.store.claimOAuthFlow('f-used', at(99 * DAY))).not.toBeNull()

      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, oauthFlows: 2 })
      expect(await t.store.claimOAuthFlow('f-live', now)).toMatchObject({ stateHash: 'state-f-live' })
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, oauthFlows: 1 })
    })

    it('deletes used and expired WebAuthn challenges, abandoned ones too, and keeps the live ones', async () => {
      const ada = await newUser()
      await ceremony('w-used', 'login', null, at(101 * DAY))
      // Ceremonies begun and never answered, and no ceremony since.
      await ceremony('w-abandoned', 'register', ada.id, at(300_000))
      await ceremony('w-expired', 'two-factor', ada.id, now)
      await ceremony('w-live-login', 'login', null, at(100 * DAY + 1))
      await ceremony('w-live-register', 'register', ada.id, at(100 * DAY + 1))
      expect(await t.store.claimPasskeyChallenge('w-used', 'login', at(99 * DAY))).toEqual({ userId: null, boundTo: null })

      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, passkeyChallenges: 3 })
      // Gone: not even a clock before they expired finds them.
      expect(await t.store.findPasskeyChallenge('w-abandoned', 'register', T0)).toBeNull()
      expect(await t.store.findPasskeyChallenge('w-expired', 'two-factor', T0)).toBeNull()
      expect(await t.store.findPasskeyChallenge('w-live-register', 'register', now)).toEqual({ userId: ada.id, boundTo: null })
      expect(await t.store.claimPasskeyChallenge('w-live-login', 'login', now)).toEqual({ userId: null, boundTo: null })
      // The one just claimed is spent: the next sweep takes it, and only it.
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual({ ...NONE, passkeyChallenges: 1 })
      expect(await t.store.findPasskeyChallenge('w-live-register', 'register', now)).toEqual({ userId: ada.id, boundTo: null })
      expect(await t.store.prune({ ...cutoffs, limit: 100 })).toEqual(NONE)
    })

    it('deletes at most `limit` rows of each kind per call', async () => {
      const user = await newUser()
      for (let i = 0; i < 5; i++) {
        await newSession(user.id, `p-batch-${i}`, T0)
        expect(await t.store.createApiKey(apiKey(user.id, `k-batch-${i}`, at(DAY)), 50, T0)).toBe(true)
        await t.store.createOAuthFlow(flow(`f-batch-${i}`, at(DAY)), T0)
        await ceremony(`w-batch-${i}`, 'login', null, at(DAY))
      }
      for (const left of [2, 2, 1, 0])
        expect(await t.store.prune({ ...cutoffs, limit: 2 })).toEqual({
          ...NONE,
          sessions: left,
          apiKeys: left,
          oauthFlows: left,
          passkeyChallenges: left,
        })
    })
  })
}
