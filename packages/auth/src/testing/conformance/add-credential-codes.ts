/**
 * The add-credential code (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox): one per account, a new one replaces the old; spent once,
 * atomically, by exactly one of 20 concurrent callers; each wrong try counts and the fifth kills
 * it; an expired one never spends; one account's code never spends another's.
 */
import { describe, expect, it } from 'vitest'
import { at, type Conformance } from './context.js'

export const addCredentialCodesConformance = (t: Conformance) => {
  const { newUser } = t
  const MINUTES_10 = 600_000
  const issue = (userId: string, codeHash: string, ms = 0) =>
    t.store.createAddCredentialCode({ userId, codeHash, expiresAt: at(ms + MINUTES_10) })
  const spend = (userId: string, codeHash: string, ms = 1000, maxFailures = 5) =>
    t.store.spendAddCredentialCode({ userId, codeHash, now: at(ms), maxFailures })

  describe('add-credential codes', () => {
    it('spends the right code once; a new code replaces the old one', async () => {
      const user = await newUser()
      expect(await spend(user.id, 'h1')).toBe(false)
      await issue(user.id, 'h1')
      await issue(user.id, 'h2')
      expect(await spend(user.id, 'h1')).toBe(false)
      expect(await spend(user.id, 'h2')).toBe(true)
      expect(await spend(user.id, 'h2')).toBe(false)
    })

    it('keeps one account’s code apart from another’s', async () => {
      const [a, b] = [await newUser(), await newUser()]
      await issue(a.id, 'same')
      await issue(b.id, 'other')
      expect(await spend(b.id, 'same')).toBe(false)
      expect(await spend(a.id, 'same')).toBe(true)
      expect(await spend(b.id, 'other')).toBe(true)
    })

    it('counts wrong tries: the fifth kills the code; a new code starts a new count', async () => {
      const user = await newUser()
      await issue(user.id, 'right')
      for (let i = 0; i < 4; i++) expect(await spend(user.id, `wrong-${i}`)).toBe(false)
      expect(await spend(user.id, 'right')).toBe(true)

      await issue(user.id, 'right')
      for (let i = 0; i < 5; i++) expect(await spend(user.id, `wrong-${i}`)).toBe(false)
      expect(await spend(user.id, 'right')).toBe(false)

      await issue(user.id, 'again')
      for (let i = 0; i < 4; i++) expect(await spend(user.id, `wrong-${i}`)).toBe(false)
      expect(await spend(user.id, 'again')).toBe(true)
    })

    it('never spends an expired code', async () => {
      const user = await newUser()
      await issue(user.id, 'h')
      expect(await spend(user.id, 'h', MINUTES_10)).toBe(false)
      expect(await spend(user.id, 'h', MINUTES_10 - 1)).toBe(true)
    })

    it('of 20 concurrent spends of one code, exactly one succeeds', async () => {
      const user = await newUser()
      await issue(user.id, 'h')
      const results = await Promise.all(Array.from({ length: 20 }, () => spend(user.id, 'h')))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('of 20 concurrent wrong tries, no more than the limit count, and the code dies', async () => {
      const user = await newUser()
      await issue(user.id, 'right', 0)
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => spend(user.id, `wrong-${i}`)))
      expect(results.some(Boolean)).toBe(false)
      expect(await spend(user.id, 'right')).toBe(false)
    })

    it('goes with its user', async () => {
      const user = await newUser()
      await issue(user.id, 'h')
      expect(await t.store.deleteUser(user.id, 0)).toBe(true)
      expect(await spend(user.id, 'h')).toBe(false)
    })
  })
}
