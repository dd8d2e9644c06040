/**
 * Known devices: the browsers an account has signed in from, by the hash of their device
 * cookie's id. Remembering one answers whether it was new, once under concurrency; the sweep
 * forgets a device a year after its last sign-in; deleting the account takes its devices along.
 */
import { describe, expect, it } from 'vitest'
import { at, type Conformance, DAY } from './context.js'

export const devicesConformance = (t: Conformance) => {
  describe('known devices', () => {
    it('remembers a device per account: new once, known afterwards, to that account only', async () => {
      const [ada, bob] = [await t.newUser(), await t.newUser()]
      expect(await t.store.knowsDevice(ada.id, 'd-1')).toBe(false)
      expect(await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-1', now: at(0), keep: 50 })).toBe(true)
      expect(await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-1', now: at(DAY), keep: 50 })).toBe(false)
      expect(await t.store.knowsDevice(ada.id, 'd-1')).toBe(true)
      expect(await t.store.knowsDevice(ada.id, 'd-2')).toBe(false)
      expect(await t.store.knowsDevice(bob.id, 'd-1')).toBe(false)
      // One browser shared by two accounts is new to each.
      expect(await t.store.rememberDevice({ userId: bob.id, deviceHash: 'd-1', now: at(DAY), keep: 50 })).toBe(true)
    })

    it('answers new to exactly one of 20 concurrent sign-ins from one new device', async () => {
      const ada = await t.newUser()
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-race', now: at(0), keep: 50 })),
      )
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('forgets a device last seen at or before the cutoff, in batches; a device seen since stays', async () => {
      const ada = await t.newUser()
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-old', now: at(0), keep: 50 })
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-edge', now: at(10 * DAY), keep: 50 })
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-back', now: at(0), keep: 50 })
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-back', now: at(11 * DAY), keep: 50 })
      const prune = (limit: number) =>
        t.store.prune({
          deadIfRefreshedBy: at(-DAY),
          deadIfCreatedBy: at(-DAY),
          now: at(0),
          forgetDevicesSeenBy: at(10 * DAY),
          limit,
        })
      expect((await prune(1)).devices).toBe(1)
      expect((await prune(10)).devices).toBe(1)
      expect((await prune(10)).devices).toBe(0)
      expect(await t.store.knowsDevice(ada.id, 'd-old')).toBe(false)
      expect(await t.store.knowsDevice(ada.id, 'd-edge')).toBe(false)
      expect(await t.store.knowsDevice(ada.id, 'd-back')).toBe(true)
    })

    it('keeps the most recently seen devices of an account when a new one passes the cap', async () => {
      const ada = await t.newUser()
      for (let i = 0; i < 4; i++)
        expect(await t.store.rememberDevice({ userId: ada.id, deviceHash: `d-cap-${i}`, now: at(i * DAY), keep: 3 })).toBe(true)
      expect(await t.store.knowsDevice(ada.id, 'd-cap-0')).toBe(false)
      for (const kept of ['d-cap-1', 'd-cap-2', 'd-cap-3']) expect(await t.store.knowsDevice(ada.id, kept)).toBe(true)
    })

    it('deletes the devices with the account', async () => {
      const ada = await t.newUser()
      await t.store.rememberDevice({ userId: ada.id, deviceHash: 'd-gone', now: at(0), keep: 50 })
      expect(await t.store.deleteUser(ada.id, 0)).toBe(true)
      expect(await t.store.knowsDevice(ada.id, 'd-gone')).toBe(false)
      const again = await t.newUser()
      expect(await t.store.rememberDevice({ userId: again.id, deviceHash: 'd-gone', now: at(0), keep: 50 })).toBe(true)
    })
  })
}
