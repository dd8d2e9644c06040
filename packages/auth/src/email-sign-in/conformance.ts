/**
 * Sign-in by email (docs/reference/email-sign-in.md): one mail per address and known browser, and
 * one for every other request (a new one kills the last of its own, never another's); a link and
 * a code that one claim spends together, with 20 concurrent claims; five tries per flow; an
 * address without an account stored as spent unless sign-up is on; and the settling step: an
 * account created without a password, the first proof of an unverified account removing its
 * password, second factor, pending email change and sessions, and nothing else.
 */
import { describe, expect, it } from 'vitest'
import { accountEvents } from '../account-events.js'
import { at, type Conformance, T0 } from '../testing/conformance/context.js'
import type { NewEmailSignIn } from './store.js'

const MINUTE = 60_000
const MAX = 5

export const emailSignInConformance = (t: Conformance) => {
  const { newUser, newSession } = t
  let n = 0
  /** A sign-in for `email` asked at `ms` (from `deviceHash`, a browser the account knows), living 15 minutes; its hashes are unique to the call. */
  const mail = (email: string, ms = 0, signUp = false, deviceHash: string | null = null): NewEmailSignIn => {
    n++
    return {
      flowHash: `flow-${n}-${crypto.randomUUID()}`,
      tokenHash: `token-${n}-${crypto.randomUUID()}`,
      codeHash: `code-${n}`,
      email,
      deviceHash,
      now: at(ms),
      expiresAt: at(ms + 15 * MINUTE),
      signUp,
    }
  }
  const race = <T>(k: number, f: () => Promise<T>) => Promise.all(Array.from({ length: k }, f))

  describe('sign-in by email', () => {
    it('answers the stored account of the address, or null; a new mail kills the earlier one', async () => {
      const user = await newUser()
      const first = mail(user.email)
      expect(await t.store.startEmailSignIn(first)).toEqual({ userId: user.id, email: user.email })
      expect(await t.store.startEmailSignIn(mail('nobody@example.com'))).toBeNull()
      const second = mail(user.email, 1000)
      await t.store.startEmailSignIn(second)
      expect(await t.store.claimEmailSignIn({ tokenHash: first.tokenHash }, at(2000), MAX)).toEqual({ status: 'invalid' })
      expect(await t.store.claimEmailSignIn({ flowHash: first.flowHash, codeHash: first.codeHash }, at(2000), MAX)).toEqual({
        status: 'invalid',
      })
      expect(await t.store.claimEmailSignIn({ tokenHash: second.tokenHash }, at(2000), MAX)).toEqual({
        status: 'claimed',
        email: user.email,
        userId: user.id,
      })
    })

    it('keeps one mail per known browser and one for every other request: none ends another', async () => {
      const user = await newUser()
      const live = async (m: NewEmailSignIn) => (await t.store.claimEmailSignIn({ tokenHash: m.tokenHash }, at(5000), MAX)).status
      const owner = mail(user.email, 0, false, 'device-a')
      const other = mail(user.email, 0, false, 'device-b')
      await t.store.startEmailSignIn(owner)
      await t.store.startEmailSignIn(other)
      const strangers = [mail(user.email, 1000), mail(user.email, 2000)]
      for (const m of strangers) expect(await t.store.startEmailSignIn(m)).toEqual({ userId: user.id, email: user.email })
      const again = mail(user.email, 3000, false, 'device-b')
      await t.store.startEmailSignIn(again)
      expect(await live(strangers[0] as NewEmailSignIn)).toBe('invalid')
      expect(await live(other)).toBe('invalid')
      for (const m of [owner, strangers[1] as NewEmailSignIn, again]) expect(await live(m)).toBe('claimed')
    })

    it('spends link and code together, once, of 20 concurrent claims', async () => {
      const user = await newUser()
      const m = mail(user.email)
      await t.store.startEmailSignIn(m)
      const claims = await race(20, () => t.store.claimEmailSignIn({ tokenHash: m.tokenHash }, at(1000), MAX))
      expect(claims.filter((c) => c.status === 'claimed')).toHaveLength(1)
      expect(await t.store.claimEmailSignIn({ flowHash: m.flowHash, codeHash: m.codeHash }, at(1000), MAX)).toEqual({
        status: 'invalid',
      })

      const byCode = mail(user.email, 2000)
      await t.store.startEmailSignIn(byCode)
      const codeClaims = await race(20, () =>
        t.store.claimEmailSignIn({ flowHash: byCode.flowHash, codeHash: byCode.codeHash }, at(3000), MAX),
      )
      expect(codeClaims.filter((c) => c.status === 'claimed')).toHaveLength(1)
      expect(await t.store.claimEmailSignIn({ tokenHash: byCode.tokenHash }, at(3000), MAX)).toEqual({ status: 'invalid' })
    })

    it('counts wrong codes: the fifth kills link and code; the right one within five works', async () => {
      const user = await newUser()
      const m = mail(user.email)
      await t.store.startEmailSignIn(m)
      for (let i = 0; i < 4; i++)
        expect(await t.store.claimEmailSignIn({ flowHash: m.flowHash, codeHash: 'wrong' }, at(1000), MAX)).toEqual({
          status: 'wrong',
          userId: user.id,
        })
      expect((await t.store.claimEmailSignIn({ flowHash: m.flowHash, codeHash: m.codeHash }, at(1000), MAX)).status).toBe(
        'claimed',
      )

      const dead = mail(user.email, 2000)
      await t.store.startEmailSignIn(dead)
      for (let i = 0; i < 5; i++)
        expect((await t.store.claimEmailSignIn({ flowHash: dead.flowHash, codeHash: 'wrong' }, at(3000), MAX)).status).toBe(
          'wrong',
        )
      expect(await t.store.claimEmailSignIn({ flowHash: dead.flowHash, codeHash: dead.codeHash }, at(3000), MAX)).toEqual({
        status: 'invalid',
      })
      expect(await t.store.claimEmailSignIn({ tokenHash: dead.tokenHash }, at(3000), MAX)).toEqual({ status: 'invalid' })
    })

    it('reads the address and account of a live flow without counting a try', async () => {
      const user = await newUser()
      const m = mail(user.email)
      await t.store.startEmailSignIn(m)
      const find = (flowHash: string) => t.store.findEmailSignInFlow(flowHash, at(1000), MAX)
      for (let i = 0; i < 5; i++) expect(await find(m.flowHash)).toEqual({ email: user.email, userId: user.id })
      for (let i = 0; i < 4; i++) await t.store.claimEmailSignIn({ flowHash: m.flowHash, codeHash: 'wrong' }, at(1000), MAX)
      expect((await t.store.claimEmailSignIn({ flowHash: m.flowHash, codeHash: m.codeHash }, at(1000), MAX)).status).toBe(
        'claimed',
      )
      expect(await find(m.flowHash)).toBeNull()
      const signUp = mail('joiner@example.com', 0, true)
      await t.store.startEmailSignIn(signUp)
      expect(await find(signUp.flowHash)).toEqual({ email: 'joiner@example.com', userId: null })
      expect(await find('unknown')).toBeNull()
      expect(await t.store.findEmailSignInFlow(signUp.flowHash, at(15 * MINUTE), MAX)).toBeNull()
    })

    it('counts at most five tries of 20 concurrent wrong codes', async () => {
      const user = await newUser()
      const m = mail(user.email)
      await t.store.startEmailSignIn(m)
      const tries = await race(20, () => t.store.claimEmailSignIn({ flowHash: m.flowHash, codeHash: 'wrong' }, at(1000), MAX))
      expect(tries.filter((c) => c.status === 'wrong')).toHaveLength(5)
      expect(await t.store.claimEmailSignIn({ tokenHash: m.tokenHash }, at(1000), MAX)).toEqual({ status: 'invalid' })
    })

    it('refuses a code on another flow, an expired mail, and an unknown token', async () => {
      const a = await newUser()
      const b = await newUser()
      const ma = mail(a.email)
      const mb = mail(b.email)
      await t.store.startEmailSignIn(ma)
      await t.store.startEmailSignIn(mb)
      expect((await t.store.claimEmailSignIn({ flowHash: mb.flowHash, codeHash: ma.codeHash }, at(1000), MAX)).status).toBe(
        'wrong',
      )
      expect(await t.store.claimEmailSignIn({ tokenHash: 'unknown' }, at(1000), MAX)).toEqual({ status: 'invalid' })
      expect(await t.store.claimEmailSignIn({ tokenHash: ma.tokenHash }, at(15 * MINUTE), MAX)).toEqual({ status: 'invalid' })
      expect(await t.store.claimEmailSignIn({ tokenHash: ma.tokenHash }, at(15 * MINUTE - 1), MAX)).toMatchObject({
        status: 'claimed',
      })
    })

    it('stores a mail for an address without an account as spent unless sign-up is on', async () => {
      const off = mail('nobody@example.com')
      expect(await t.store.startEmailSignIn(off)).toBeNull()
      expect(await t.store.claimEmailSignIn({ tokenHash: off.tokenHash }, at(1000), MAX)).toEqual({ status: 'invalid' })
      const on = mail('newcomer@example.com', 0, true)
      expect(await t.store.startEmailSignIn(on)).toBeNull()
      expect(await t.store.claimEmailSignIn({ tokenHash: on.tokenHash }, at(1000), MAX)).toEqual({
        status: 'claimed',
        email: 'newcomer@example.com',
        userId: null,
      })
    })

    it('creates the account of a sign-up verified and without a password, once', async () => {
      const id = crypto.randomUUID()
      const settled = await t.store.settleEmailSignIn({
        revoke: accountEvents['email-sign-in-settled'],
        email: 'newcomer@example.com',
        userId: null,
        newUser: { id, name: 'newcomer', createdAt: T0 },
      })
      expect(settled).toEqual({ userId: id, credentialsVersion: 0, created: true, settled: false, revokedSessionIds: [] })
      const found = await t.store.findUserByEmail('newcomer@example.com')
      expect(found?.passwordHash).toBeNull()
      expect(found?.user).toMatchObject({ id, name: 'newcomer', emailVerified: true })
      const again = await t.store.settleEmailSignIn({
        revoke: accountEvents['email-sign-in-settled'],
        email: 'newcomer@example.com',
        userId: null,
        newUser: { id: crypto.randomUUID(), name: 'other', createdAt: T0 },
      })
      expect(again).toMatchObject({ userId: id, created: false, settled: false })
      expect(
        await t.store.settleEmailSignIn({
          revoke: accountEvents['email-sign-in-settled'],
          email: 'nobody@example.com',
          userId: null,
          newUser: null,
        }),
      ).toBeNull()
    })

    it('on the first proof of an unverified account removes its password, factor, pending change and sessions', async () => {
      const user = await newUser()
      const other = await newUser()
      const sessions = [await newSession(user.id), await newSession(user.id)]
      const kept = await newSession(other.id)
      await t.store.createEmailToken({
        kind: 'change-email',
        userId: user.id,
        tokenHash: 'squatter-change',
        expiresAt: at(60 * MINUTE),
        newEmail: 'squatter@example.com',
      })
      expect(await t.store.setPendingTwoFactor(user.id, 'sealed', T0)).toBe(true)
      const settled = await t.store.settleEmailSignIn({
        revoke: accountEvents['email-sign-in-settled'],
        email: user.email,
        userId: user.id,
        newUser: null,
      })
      expect(settled).toMatchObject({ userId: user.id, credentialsVersion: 1, created: false, settled: true })
      expect([...(settled?.revokedSessionIds ?? [])].sort()).toEqual([...sessions].sort())
      const found = await t.store.findUserById(user.id)
      expect(found).toMatchObject({ passwordHash: null, credentialsVersion: 1, user: { emailVerified: true } })
      for (const s of sessions) expect(await t.store.findSession(s)).toBeNull()
      expect(await t.store.findSession(kept)).not.toBeNull()
      expect(await t.store.findTwoFactor(user.id)).toBeNull()
      expect(await t.store.findEmailToken('squatter-change', 'change-email', T0)).toBeNull()
      // A session for the old version is refused; the new version opens one.
      expect(
        await t.store.createSession({
          id: crypto.randomUUID(),
          userId: user.id,
          refreshHash: 'x',
          now: T0,
          credentialsVersion: 0,
        }),
      ).toBe(false)

      // Verified now: a second proof changes nothing.
      const session = await t.store.createSession({
        id: crypto.randomUUID(),
        userId: user.id,
        refreshHash: 'y',
        now: T0,
        credentialsVersion: 1,
      })
      expect(session).toBe(true)
      expect(
        await t.store.settleEmailSignIn({
          revoke: accountEvents['email-sign-in-settled'],
          email: user.email,
          userId: user.id,
          newUser: null,
        }),
      ).toEqual({
        userId: user.id,
        credentialsVersion: 1,
        created: false,
        settled: false,
        revokedSessionIds: [],
      })
    })

    it('settles a claimed account only while it still has the address', async () => {
      const user = await newUser()
      expect(
        await t.store.settleEmailSignIn({
          revoke: accountEvents['email-sign-in-settled'],
          email: 'old@example.com',
          userId: user.id,
          newUser: null,
        }),
      ).toBeNull()
      expect((await t.store.findUserById(user.id))?.user.emailVerified).toBe(false)
    })

    it('prunes used and expired mails only', async () => {
      const user = await newUser()
      const used = mail(user.email)
      await t.store.startEmailSignIn(used)
      await t.store.claimEmailSignIn({ tokenHash: used.tokenHash }, at(1000), MAX)
      const live = mail('other@example.com', 0, true)
      await t.store.startEmailSignIn(live)
      expect(await t.store.pruneEmailSignIns(at(2000), 100)).toBe(1)
      expect(await t.store.pruneEmailSignIns(at(15 * MINUTE), 100)).toBe(1)
      expect(await t.store.pruneEmailSignIns(at(15 * MINUTE), 100)).toBe(0)
    })
  })
}
