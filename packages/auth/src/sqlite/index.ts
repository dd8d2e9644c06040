/**
 * `@latchkey/auth/sqlite`: the SQLite store, its schema, and the one call that creates its tables.
 */
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'

export * as schema from './schema.js'
export { sqliteCounts, sqliteStore } from './store.js'

/** Folder of the committed SQL migrations; shipped with the package. */
export const sqliteMigrationsFolder = fileURLToPath(new URL('../../drizzle/sqlite', import.meta.url))

/**
 * Opens (creating if needed) a SQLite database with the settings the store expects:
 * WAL journal, foreign keys on, and a busy timeout so several processes can share the file.
 *
 * @example
 * const db = openSqlite('data/app.db')   // or ':memory:'
 */
export const openSqlite = (path: string): Database.Database => {
  const db = new Database(path)
  if (path !== ':memory:') db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  return db
}

/**
 * Creates or upgrades the library's tables (`auth_*`). Idempotent; safe on every start.
 * Uses its own bookkeeping table, so an app can keep its own Drizzle migrations in the same file.
 */
export const migrateSqlite = (db: Database.Database): void => {
  migrate(drizzle({ client: db }), { migrationsFolder: sqliteMigrationsFolder, migrationsTable: '__latchkey_migrations' })
}
