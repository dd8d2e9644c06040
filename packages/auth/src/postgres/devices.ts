/** The known-devices facet (`store/devices.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { and, desc, eq, notInArray, sql } from 'drizzle-orm'
import type { DeviceStore } from '../store/devices.js'
import type { PgDb } from './db.js'
import { devices } from './schema.js'

export const postgresDevices = (db: PgDb): DeviceStore => ({
  async rememberDevice({ userId, deviceHash, now, keep }) {
    // A row this statement inserted has xmax 0; one it updated (the device was known) does not.
    const [row] = await db
      .insert(devices)
      .values({ userId, deviceHash, lastSeenAt: now })
      .onConflictDoUpdate({ target: [devices.userId, devices.deviceHash], set: { lastSeenAt: now } })
      .returning({ added: sql<boolean>`(xmax = 0)` })
    if (row?.added !== true) return false
    const kept = db
      .select({ ctid: sql`ctid` })
      .from(devices)
      .where(eq(devices.userId, userId))
      .orderBy(desc(devices.lastSeenAt))
      .limit(keep)
    await db.delete(devices).where(and(eq(devices.userId, userId), notInArray(sql`ctid`, kept)))
    return true
  },

  async knowsDevice(userId, deviceHash) {
    const [row] = await db
      .select({ userId: devices.userId })
      .from(devices)
      .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
    return row !== undefined
  },
})
