/** The synchronous SQLite database every SQLite store facet runs on, whatever the driver. */
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import type * as schema from './schema.js'

/** A synchronous Drizzle SQLite database whose `run()` reports the rows it changed. */
export type SyncSqliteDb = BaseSQLiteDatabase<'sync', { changes: number }, typeof schema>

/** The two PRAGMA calls the store makes, in its driver's words. */
export interface SqlitePragmas {
  /** Runs `PRAGMA <statement>`, e.g. `synchronous = FULL`. */
  set(statement: string): void
  /** The value of `PRAGMA <name>`, e.g. `synchronous` → 1. */
  get(name: string): number
}
