/**
 * Social sign-in (docs/guide/social-sign-in.md): identities keyed by (issuer, subject), one
 * account each; an account made with its identity in one step or not at all; never the last way
 * to sign in unlinked (nor the last passkey removed while an identity remains the other way in);
 * flows claimed once, until they expire, under 20 concurrent callers.
 */
import { describe, expect, it } from 'vitest'
import { at, type Conformance, DAY, T0 } from '../testing/conformance/context.js'
import type { NewIdentity, NewOAuthFlow } from './store.js'

export const identitiesConformance = (t: Conformance) => {
  const race = <T>(n: number, f: () => Promise<T>) => Promise.all(Array.from({ length: n }, f))
  const identity = (userId: string, more: Partial<NewIdentity> = {}): NewIdentity => ({
    id: crypto.randomUUID(),
    userId,
    provider: 'github',
    issuer: 'https://github.com',
    subject: `${Math.floor(Math.random() * 1e9)}`,
    email: 'octo@example.com',
    sealedTokens: null,
    createdAt: T0,
    ...more,
  })
  const federated = (email = `f-${crypto.randomUUID()}@example.com`) => ({
    id: crypto.randomUUID(),
    name: 'Octo',
    email,
    emailVerified: true,
    createdAt: T0,
  })

  describe('identities', () => {
    it('makes an account with its identity in one step, or neither when the email or the identity is taken', async () => {
      const user = federated()
      const first = identity(user.id)
      expect(await t.store.createFederatedUser(user, first)).toBe('created')
      const found = await t.store.findUserById(user.id)
      expect(found?.user).toMatchObject({ email: user.email, emailVerified: true })
      expect(found?.passwordHash ?? '').toBe('')
      expect(await t.store.findIdentity(first.issuer, first.subject)).toMatchObject({ id: first.id, userId: user.id })
      const sameEmail = federated(user.email)
      expect(await t.store.createFederatedUser(sameEmail, identity(sameEmail.id))).toBe('email_taken')
      const sameIdentity = federated()
      expect(await t.store.createFederatedUser(sameIdentity, { ...identity(sameIdentity.id), subject: first.subject })).toBe(
        'identity_taken',
      )
      expect(await t.store.findUserById(sameIdentity.id)).toBeNull()
      expect(await t.store.findUserByEmail(sameIdentity.email)).toBeNull()
    })

    it('an identity is (issuer, subject): the same subject at another issuer is another identity', async () => {
      const ada = await t.newUser()
      const bob = await t.newUser()
      const gh = identity(ada.id, { subject: '99999' })
      expect(await t.store.linkIdentity(gh)).toBe('linked')
      expect(await t.store.linkIdentity(identity(bob.id, { subject: '99999', issuer: 'https://accounts.google.com' }))).toBe(
        'linked',
      )
      expect(await t.store.linkIdentity({ ...identity(ada.id), subject: '99999' })).toBe('already_linked')
      expect(await t.store.linkIdentity({ ...identity(bob.id), subject: '99999' })).toBe('in_use')
      expect((await t.store.findIdentity('https://github.com', '99999'))?.userId).toBe(ada.id)
      expect((await t.store.findIdentity('https://accounts.google.com', '99999'))?.userId).toBe(bob.id)
    })

    it('lists a user’s own oldest first, records a use, and finds the newest kept tokens', async () => {
      const ada = await t.newUser()
      const later = identity(ada.id, { createdAt: at(1000), sealedTokens: 'v2.k.sealed-later', provider: 'google' })
      const first = identity(ada.id, { sealedTokens: 'v2.k.sealed-first' })
      await t.store.linkIdentity(later)
      await t.store.linkIdentity(first)
      expect((await t.store.listIdentities(ada.id)).map((i) => i.id)).toEqual([first.id, later.id])
      expect(await t.store.listIdentities((await t.newUser()).id)).toEqual([])
      await t.store.useIdentity({ id: first.id, email: 'new@example.com', now: at(5000), sealedTokens: 'v2.k.sealed-new' })
      expect((await t.store.listIdentities(ada.id))[0]).toMatchObject({ email: 'new@example.com', lastUsedAt: at(5000) })
      expect(await t.store.findIdentityTokens(ada.id, 'github')).toBe('v2.k.sealed-new')
      await t.store.useIdentity({ id: first.id, email: null, now: at(6000) })
      expect(await t.store.findIdentityTokens(ada.id, 'github')).toBe('v2.k.sealed-new')
      expect(await t.store.findIdentityTokens(ada.id, 'gitlab')).toBeNull()
    })

    it('pages and counts the kept tokens not sealed under a key, by a plain prefix; none kept is not counted', async () => {
      const users = [await t.newUser(), await t.newUser(), await t.newUser(), await t.newUser(), await t.newUser()]
      // `_` and `%` are LIKE wildcards: a prefix compare must not treat them as such.
      const sealed = ['v2.key_A.iv.data', 'v2.keyXA.iv.data', 'v1.old.iv.data', null, 'v2.key_A.iv2.data2']
      const linked = users.map((user, i) => identity(user.id, { sealedTokens: sealed[i] ?? null }))
      for (const one of linked) expect(await t.store.linkIdentity(one)).toBe('linked')
      expect(await t.store.countStaleTokenSeals('v2.key_A.')).toBe(2)
      const all = await t.store.staleTokenSeals({ sealingPrefix: 'v2.key_A.', afterId: null, limit: 100 })
      expect(all.map((r) => r.sealedTokens).sort()).toEqual(['v1.old.iv.data', 'v2.keyXA.iv.data'])
      for (const row of all) expect(row.userId).toBe(linked.find((one) => one.id === row.id)?.userId)
      const ids = all.map((r) => r.id)
      expect([...ids].sort()).toEqual(ids)
      const [first] = await t.store.staleTokenSeals({ sealingPrefix: 'v2.key_A.', afterId: null, limit: 1 })
      expect(first?.id).toBe(ids[0])
      expect(await t.store.staleTokenSeals({ sealingPrefix: 'v2.key_A.', afterId: ids[0] ?? null, limit: 100 })).toEqual(
        all.slice(1),
      )
    })

    it('re-seals kept tokens only while they are unchanged; the count drops', async () => {
      const ada = await t.newUser()
      const one = identity(ada.id, { sealedTokens: 'v2.old.iv.data' })
      await t.store.linkIdentity(one)
      expect(await t.store.countStaleTokenSeals('v2.new.')).toBe(1)
      expect(await t.store.resealIdentityTokens(one.id, 'v2.other.iv.data', 'v2.new.iv.data')).toBe(false)
      expect(await t.store.findIdentityTokens(ada.id, 'github')).toBe('v2.old.iv.data')
      expect(await t.store.resealIdentityTokens(one.id, 'v2.old.iv.data', 'v2.new.iv.data')).toBe(true)
      expect(await t.store.findIdentityTokens(ada.id, 'github')).toBe('v2.new.iv.data')
      expect(await t.store.countStaleTokenSeals('v2.new.')).toBe(0)
      expect(await t.store.resealIdentityTokens(one.id, 'v2.old.iv.data', 'v2.newer.iv.data')).toBe(false)
    })

    it('never unlinks the last way in, of 20 concurrent removals exactly one goes, and only the owner’s', async () => {
      const user = federated()
      const only = identity(user.id)
      await t.store.createFederatedUser(user, only)
      expect(await t.store.deleteIdentity(user.id, only.id)).toBe('last_sign_in')
      const other = await t.newUser()
      expect(await t.store.deleteIdentity(other.id, only.id)).toBe('not_found')
      const second = identity(user.id)
      await t.store.linkIdentity(second)
      const outcomes = await race(20, () => t.store.deleteIdentity(user.id, second.id))
      expect(outcomes.filter((o) => o === 'deleted')).toHaveLength(1)
      expect(await t.store.listIdentities(user.id)).toHaveLength(1)
      // An account with a password can unlink its only identity; a passkey counts as a way in too.
      const ada = await t.newUser()
      const adas = identity(ada.id)
      await t.store.linkIdentity(adas)
      expect(await t.store.deleteIdentity(ada.id, adas.id)).toBe('deleted')
    })

    it('a passkey is not the last way in while an identity remains', async () => {
      const user = federated()
      await t.store.createFederatedUser(user, identity(user.id))
      const key = {
        id: `cred-${crypto.randomUUID()}`,
        userId: user.id,
        publicKey: 'cose',
        counter: 0,
        transports: [],
        multiDevice: false,
        backedUp: false,
        name: 'Key',
        createdAt: T0,
      }
      await t.store.createPasskey(key)
      expect(await t.store.deletePasskey(user.id, key.id)).toBe('deleted')
    })

    it('claims a flow once under 20 concurrent callers, never after it expired', async () => {
      const flow = {
        hash: `flow-${crypto.randomUUID()}`,
        provider: 'google',
        stateHash: 'state-hash',
        nonce: 'nonce',
        returnTo: '/account',
        userId: null,
        sessionId: 'session-of-the-link',
        expiresAt: at(600_000),
      }
      await t.store.createOAuthFlow(flow, T0)
      const claims = await race(20, () => t.store.claimOAuthFlow(flow.hash, at(1000)))
      const won = claims.filter((c) => c !== null)
      expect(won).toEqual([
        {
          provider: 'google',
          stateHash: 'state-hash',
          nonce: 'nonce',
          returnTo: '/account',
          userId: null,
          sessionId: 'session-of-the-link',
        },
      ])
      const old = { ...flow, hash: `flow-${crypto.randomUUID()}` }
      await t.store.createOAuthFlow(old, T0)
      expect(await t.store.claimOAuthFlow(old.hash, at(600_000))).toBeNull()
      expect(await t.store.claimOAuthFlow('unknown', T0)).toBeNull()
    })
  })

  describe('social sign-in flows: the sweep', () => {
    const now = at(100 * DAY)
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

    it('deletes used and expired flows and keeps the live one', async () => {
      // Stored at T0, when none of them was dead: storing a flow clears the dead ones itself.
      for (const [hash, expiresAt] of [
        ['f-used', at(101 * DAY)],
        ['f-expired', now],
        ['f-live', at(100 * DAY + 1)],
      ] as const)
        await t.store.createOAuthFlow(flow(hash, expiresAt), T0)
      expect(await t.store.claimOAuthFlow('f-used', at(99 * DAY))).not.toBeNull()

      expect(await t.store.pruneOAuthFlows(now, 100)).toBe(2)
      expect(await t.store.claimOAuthFlow('f-live', now)).toMatchObject({ stateHash: 'state-f-live' })
      expect(await t.store.pruneOAuthFlows(now, 100)).toBe(1)
      expect(await t.store.pruneOAuthFlows(now, 100)).toBe(0)
    })

    it('deletes at most `limit` flows per call', async () => {
      for (let i = 0; i < 5; i++) await t.store.createOAuthFlow(flow(`f-batch-${i}`, at(DAY)), T0)
      for (const left of [2, 2, 1, 0]) expect(await t.store.pruneOAuthFlows(now, 2)).toBe(left)
    })
  })
}
