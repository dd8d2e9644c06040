/**
 * `@latchkey/auth/bun-sqlite`: the SQLite store on Bun's built-in `bun:sqlite`, the same schema
 * and migrations as `@latchkey/auth/sqlite` (a file made by one opens with the other).
 *
 * @example
 * import { bunSqliteStore, migrateBunSqlite, openBunSqlite } from '@latchkey/auth/bun-sqlite'
 * const db = openBunSqlite('data/app.db')
 * migrateBunSqlite(db)
 * const auth = createAuth({ secret, store: bunSqliteStore(db), sendMail, getConnInfo })
 */

import { Database } from 'bun:sqlite'
import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import * as schema from '../sqlite/schema.js'
import { type SyncSqliteDb, syncSqliteStore } from '../sqlite/sync-store.js'
import type { Store, UserRecord } from '../store/types.js'

export * as schema from '../sqlite/schema.js'

/** Folder of the committed SQL migrations (the SQLite ones); shipped with the package. */
export const bunSqliteMigrationsFolder = fileURLToPath(new URL('../../drizzle/sqlite', import.meta.url))

/** Opens (creating if needed) a database with the settings the store expects: WAL, foreign keys, a busy timeout. */
export const openBunSqlite = (path: string): Database => {
  const db = new Database(path, { create: true })
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('PRAGMA busy_timeout = 5000')
  return db
}

/** Creates or upgrades the library's tables (`auth_*`); idempotent, safe on every start. */
export const migrateBunSqlite = (db: Database): void => {
  migrate(drizzle({ client: db }), { migrationsFolder: bunSqliteMigrationsFolder, migrationsTable: '__latchkey_migrations' })
}

/** A {@link Store} on a `bun:sqlite` database. Call {@link migrateBunSqlite} once before use. */
export const bunSqliteStore = (client: Database): Store<UserRecord> =>
  syncSqliteStore(drizzle({ client, schema }) as unknown as SyncSqliteDb, {
    set: (statement) => client.exec(`PRAGMA ${statement}`),
    get: (name) => Number(Object.values((client.query(`PRAGMA ${name}`).get() ?? {}) as object)[0]),
  })
