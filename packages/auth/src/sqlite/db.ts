/** The synchronous SQLite database every SQLite store facet runs on, whatever the driver. */
import { count, eq, sql } from 'drizzle-orm'
import type { BaseSQLiteDatabase, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
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

/** Runs a write that revokes or spends so that it survives a power loss (see {@link durableWrites}). */
export type Durable = <T>(write: () => T) => T

/** Every multi-statement step takes the write lock up front, so it is atomic across processes. */
export const immediate = { behavior: 'immediate' } as const

/**
 * WAL with synchronous=NORMAL (the usual setting, and openSqlite's) may lose the last commits on
 * power loss: a logout, a spent refresh value or a used reset token would come back. The writes
 * that revoke or spend are committed with synchronous=FULL, which syncs the WAL at the commit; it
 * costs one fsync (docs/PERFORMANCE.md), other writes keep theirs.
 */
export const durableWrites =
  (pragmas: SqlitePragmas): Durable =>
  (write) => {
    const previous = pragmas.get('synchronous')
    if (previous >= 2) return write()
    pragmas.set('synchronous = FULL')
    try {
      return write()
    } finally {
      pragmas.set(`synchronous = ${previous}`)
    }
  }

/**
 * Statements built and prepared once, on first use (the tables may not exist yet when the store
 * is made), instead of once per call.
 */
export const preparedOnce = <T>(prepare: () => T): (() => T) => {
  let statements: T | undefined
  return () => {
    statements ??= prepare()
    return statements
  }
}

/**
 * How many rows of `table` belong to the account (placeholder `userId`), prepared: the check a
 * sign-in makes before it trims the account's sessions or devices, which nearly always finds
 * nothing past the limit and then writes nothing.
 */
export const preparedRowsOfUser = (db: SyncSqliteDb, table: SQLiteTable, userId: SQLiteColumn) =>
  db
    .select({ n: count() })
    .from(table)
    .where(eq(userId, sql.placeholder('userId')))
    .prepare()
