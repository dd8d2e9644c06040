/** The SQLite store on better-sqlite3 (Node): the driver-neutral core of sync-store.ts over it. */
import type BetterSqlite3 from 'better-sqlite3'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import type { Store, UserRecord } from '../store/types.js'
import * as schema from './schema.js'
import { challenges, emailTokens, recoveryCodes, resetTokens, sessions, twoFactors, users } from './schema.js'
import { syncSqliteStore } from './sync-store.js'

/**
 * A {@link Store} on a better-sqlite3 database. Call {@link migrateSqlite} once before use.
 *
 * @example
 * const db = openSqlite('data/app.db')
 * migrateSqlite(db)
 * const auth = createAuth({ secret, store: sqliteStore(db), sendMail })
 */
export const sqliteStore = (client: BetterSqlite3.Database): Store<UserRecord> =>
  syncSqliteStore(drizzle({ client, schema }), {
    set: (statement) => void client.pragma(statement),
    get: (name) => client.pragma(name, { simple: true }) as number,
  })

/** Row counts, for tests and diagnostics. */
export const sqliteCounts = (client: BetterSqlite3.Database) =>
  drizzle({ client, schema })
    .select({
      users: sql<number>`(select count(*) from ${users})`,
      sessions: sql<number>`(select count(*) from ${sessions})`,
      resetTokens: sql<number>`(select count(*) from ${resetTokens})`,
      emailTokens: sql<number>`(select count(*) from ${emailTokens})`,
      twoFactors: sql<number>`(select count(*) from ${twoFactors})`,
      recoveryCodes: sql<number>`(select count(*) from ${recoveryCodes})`,
      challenges: sql<number>`(select count(*) from ${challenges})`,
    })
    .from(sql`(select 1)`)
    .get()
