/** The known-devices facet (`store/devices.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, desc, eq, notInArray, sql } from 'drizzle-orm'
import type { DeviceStore } from '../store/devices.js'
import { type Durable, immediate, preparedOnce, preparedRowsOfUser, type SyncSqliteDb } from './db.js'
import { devices } from './schema.js'

export const sqliteDevices = (db: SyncSqliteDb, _durable: Durable): DeviceStore => {
  const p = sql.placeholder
  const thisDevice = and(eq(devices.userId, p('userId')), eq(devices.deviceHash, p('deviceHash')))
  // Every sign-in remembers its device: built and prepared once (docs/PERFORMANCE.md#the-login-measured).
  const hot = preparedOnce(() => ({
    // A new device's row, or a known one's last sign-in moved to now.
    upsert: db
      .insert(devices)
      .values({ userId: p('userId'), deviceHash: p('deviceHash'), lastSeenAt: p('now') })
      .onConflictDoUpdate({ target: [devices.userId, devices.deviceHash], set: { lastSeenAt: sql`excluded.last_seen_at` } })
      .prepare(),
    // All but the account's `keep` most recently seen devices.
    trim: db
      .delete(devices)
      .where(
        and(
          eq(devices.userId, p('userId')),
          notInArray(
            sql`rowid`,
            db
              .select({ rowid: sql`rowid` })
              .from(devices)
              .where(eq(devices.userId, p('userId')))
              .orderBy(desc(devices.lastSeenAt), desc(sql`rowid`))
              .limit(p('keep')),
          ),
        ),
      )
      .prepare(),
    known: db.select({ userId: devices.userId }).from(devices).where(thisDevice).prepare(),
    deviceCount: preparedRowsOfUser(db, devices, devices.userId),
  }))

  return {
    async rememberDevice({ userId, deviceHash, now, keep }) {
      const { known, upsert, deviceCount, trim } = hot()
      return db.transaction(() => {
        const added = known.get({ userId, deviceHash }) === undefined
        upsert.run({ userId, deviceHash, now })
        if (added && (deviceCount.get({ userId })?.n ?? 0) > keep) trim.run({ userId, keep })
        return added
      }, immediate)
    },

    async knowsDevice(userId, deviceHash) {
      return hot().known.get({ userId, deviceHash }) !== undefined
    },
  }
}
