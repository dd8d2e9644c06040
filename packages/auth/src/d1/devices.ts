/** The known-devices facet (`store/devices.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { and, desc, eq, notInArray, sql } from 'drizzle-orm'
import { devices } from '../sqlite/schema.js'
import type { DeviceStore } from '../store/devices.js'
import { changes, type D1Db } from './db.js'

export const d1Devices = (db: D1Db): DeviceStore => ({
  async rememberDevice({ userId, deviceHash, now, keep }) {
    const mine = and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash))
    const kept = db
      .select({ rowid: sql`rowid` })
      .from(devices)
      .where(eq(devices.userId, userId))
      .orderBy(desc(devices.lastSeenAt), desc(sql`rowid`))
      .limit(keep)
    // One batch: the insert adds the row only when it is new; the update marks the sign-in
    // either way; the delete keeps the `keep` most recently seen.
    const [added] = await db.batch([
      db.insert(devices).values({ userId, deviceHash, lastSeenAt: now }).onConflictDoNothing(),
      db.update(devices).set({ lastSeenAt: now }).where(mine),
      db.delete(devices).where(and(eq(devices.userId, userId), notInArray(sql`rowid`, kept))),
    ])
    return changes(added) > 0
  },

  async knowsDevice(userId, deviceHash) {
    const row = await db
      .select({ userId: devices.userId })
      .from(devices)
      .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
      .get()
    return row !== undefined
  },
})
