/** The known-devices facet (`store/devices.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { and, eq, type SQLWrapper, sql } from 'drizzle-orm'
import type { DeviceStore, RememberDeviceInput } from '../store/devices.js'
import { changes, type SqliteDb, type SqliteSteps, type StepValues } from './db.js'
import { devices } from './schema.js'

export const sqliteDevices = (db: SqliteDb, steps: SqliteSteps): DeviceStore => {
  const mine = (userId: string | SQLWrapper, deviceHash: string | SQLWrapper) =>
    and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash))
  // Every sign-in remembers its device: one step, prepared once on the synchronous drivers
  // (docs/PERFORMANCE.md#the-login-measured).
  const remember = steps.preparedAtomic(({ userId, deviceHash, now, keep }: StepValues<RememberDeviceInput>) => [
    // Adds the row only when the device is new: its change count is the answer.
    db.insert(devices).values({ userId, deviceHash, lastSeenAt: now }).onConflictDoNothing(),
    // Marks the sign-in either way (the value encoded as its column is).
    db
      .update(devices)
      .set({ lastSeenAt: sql`${sql.param(now, devices.lastSeenAt)}` })
      .where(mine(userId, deviceHash)),
    // Every row of the account past its `keep` most recently seen (nearly always none). A literal
    // `limit -1` (none): SQLite plans a bound limit far more slowly (docs/PERFORMANCE.md#measurements-behind-the-code).
    db.delete(devices).where(
      sql`rowid in (select rowid from ${devices} where ${devices.userId} = ${userId}
          order by ${devices.lastSeenAt} desc, rowid desc limit -1 offset ${keep})`,
    ),
  ])
  const known = steps.prepared(() =>
    db
      .select({ userId: devices.userId })
      .from(devices)
      .where(mine(sql.placeholder('userId'), sql.placeholder('deviceHash')))
      .prepare(),
  )

  return {
    async rememberDevice(input) {
      const [added] = await remember(input)
      return changes(added) > 0
    },

    async knowsDevice(userId, deviceHash) {
      return (await known().get({ userId, deviceHash })) !== undefined
    },
  }
}
