/** The known-devices facet (`store/devices.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, desc, eq, notInArray, sql } from 'drizzle-orm'
import type { DeviceStore } from '../store/devices.js'
import { type Durable, immediate, type SyncSqliteDb } from './db.js'
import { devices } from './schema.js'

export const sqliteDevices = (db: SyncSqliteDb, _durable: Durable): DeviceStore => ({
  async rememberDevice({ userId, deviceHash, now, keep }) {
    return db.transaction((tx) => {
      const added = tx.insert(devices).values({ userId, deviceHash, lastSeenAt: now }).onConflictDoNothing().run().changes
      if (added === 0) {
        tx.update(devices)
          .set({ lastSeenAt: now })
          .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
          .run()
        return false
      }
      const kept = tx
        .select({ rowid: sql`rowid` })
        .from(devices)
        .where(eq(devices.userId, userId))
        .orderBy(desc(devices.lastSeenAt), desc(sql`rowid`))
        .limit(keep)
      tx.delete(devices)
        .where(and(eq(devices.userId, userId), notInArray(sql`rowid`, kept)))
        .run()
      return true
    }, immediate)
  },

  async knowsDevice(userId, deviceHash) {
    const row = db
      .select({ userId: devices.userId })
      .from(devices)
      .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
      .get()
    return row !== undefined
  },
})
