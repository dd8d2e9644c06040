/**
 * What every SQLite store facet runs on, whatever the driver: the database (synchronous
 * better-sqlite3, `bun:sqlite`, `node:sqlite`, or D1's async one) and the small executor of its
 * steps ({@link SqliteSteps}). A facet is written once, over Drizzle's SQLite builders.
 *
 * An atomic step of several statements is a list of guarded statements: each carries the same
 * guard (the token is unspent, the version is current, the key is pending, …), read from the state
 * before the step, and the last one ends the guard (spends the token, bumps the version, enables
 * the key). A second request racing the first runs after it, finds the guard false, and changes
 * nothing. The executor runs the list as one IMMEDIATE transaction on the synchronous drivers and
 * as one `batch` (a transaction) on D1. No read-then-write in code.
 */
import { count, eq, exists, type Placeholder, sql } from 'drizzle-orm'
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch'
import type { BaseSQLiteDatabase, ExecuteResultSync, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { versionIs } from '../store/predicates.js'
import type * as schema from './schema.js'
import { users } from './schema.js'

/** A synchronous Drizzle SQLite database whose `run()` reports the rows it changed. */
export type SyncSqliteDb = BaseSQLiteDatabase<'sync', { changes: number }, typeof schema>

/** A Drizzle database on the SQLite schema, on any driver: a synchronous one or D1. */
export type SqliteDb = BaseSQLiteDatabase<'sync' | 'async', unknown, typeof schema>

/** A statement of a step, built and not yet run: any Drizzle SQLite query builder. */
export type Statement = BatchItem<'sqlite'> & { prepare(): { execute(values?: Record<string, unknown>): unknown } }
type Statements = readonly [Statement, ...Statement[]]

/**
 * The values a prepared step runs with, as its statements are built with them: a placeholder per
 * value where the driver keeps the statements, the value itself where it builds them per call.
 */
export type StepValues<V> = { readonly [K in keyof V]: Placeholder<K & string, V[K]> }

/** How a driver runs the facets' steps. */
export interface SqliteSteps {
  /** Statements built and prepared once, on first use, where the driver keeps them (the synchronous ones); else built per call. */
  prepared<T>(prepare: () => T): () => T
  /**
   * Runs a write that revokes or spends so that it survives a power loss (see {@link durableWrites}).
   * `write` runs the statement (`run()`, `all()`, `get()`, {@link atomic}), never hands back a builder.
   */
  durable: Durable
  /**
   * Runs guarded statements as one atomic step (an IMMEDIATE transaction, or one D1 batch) and
   * answers each one's result: its rows for a select or RETURNING, the run result otherwise. On
   * the synchronous drivers the step has run when this returns, so {@link durable} can hold it.
   */
  atomic<T extends Statements>(statements: T): Promise<BatchResponse<T>>
  /** Runs statements each atomic on its own (one short write each), in one round trip where the driver has them. */
  each<T extends Statements>(statements: T): Promise<BatchResponse<T>>
  /**
   * A hot atomic step, run as {@link atomic} with the `values` of each call: its statements built
   * and prepared once where the driver keeps them (the synchronous ones, over placeholders), else
   * built per call with the values.
   */
  preparedAtomic<V extends object, T extends Statements>(
    build: (values: StepValues<V>) => T,
  ): (values: V) => Promise<BatchResponse<T>>
}

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
const immediate = { behavior: 'immediate' } as const

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
const preparedOnce = <T>(prepare: () => T): (() => T) => {
  let statements: T | undefined
  return () => {
    statements ??= prepare()
    return statements
  }
}

/** A placeholder named for every value a prepared step reads. */
const placeholders = new Proxy({}, { get: (_, name) => sql.placeholder(String(name)) }) as StepValues<never>

/** The executor on a synchronous driver: a step is one IMMEDIATE transaction. */
export const syncSteps = (db: SyncSqliteDb, pragmas: SqlitePragmas): SqliteSteps => {
  type Prepared = ReturnType<Statement['prepare']>
  const run = (statements: readonly Prepared[], values?: Record<string, unknown>) =>
    statements.map((s) => (s.execute(values) as ExecuteResultSync<unknown>).sync())
  const prepare = (statements: Statements) => statements.map((s) => s.prepare())
  return {
    prepared: preparedOnce,
    durable: durableWrites(pragmas),
    atomic: (statements) => Promise.resolve(db.transaction(() => run(prepare(statements)), immediate) as never),
    each: (statements) => Promise.resolve(run(prepare(statements)) as never),
    preparedAtomic: (build) => {
      const statements = preparedOnce(() => prepare(build(placeholders)))
      return (values) =>
        Promise.resolve(db.transaction(() => run(statements(), values as Record<string, unknown>), immediate) as never)
    },
  }
}

/** Rows a write changed, from its run result: `changes` on the synchronous drivers, `meta.changes` on D1. */
export const changes = (result: unknown) => {
  const r = result as { changes?: number; meta?: { changes?: number } } | undefined
  return Number(r?.changes ?? r?.meta?.changes ?? 0)
}

/** The guard "the user's credentials version is still `version`". */
export const currentVersion = (db: SqliteDb, userId: string | Placeholder, version: number | Placeholder) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(users)
      .where(versionIs(users, userId, version)),
  )

/**
 * How many rows of `table` belong to the account (placeholder `userId`), prepared: the check a
 * sign-in makes before it trims the account's sessions or devices, which nearly always finds
 * nothing past the limit and then writes nothing.
 */
export const preparedRowsOfUser = <M extends 'sync' | 'async', R>(
  db: BaseSQLiteDatabase<M, R, typeof schema>,
  table: SQLiteTable,
  userId: SQLiteColumn,
) =>
  db
    .select({ n: count() })
    .from(table)
    .where(eq(userId, sql.placeholder('userId')))
    .prepare()
