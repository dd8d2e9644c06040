/**
 * `@latchkey/auth/node-sqlite`: the SQLite store on `node:sqlite` (`DatabaseSync`), the SQLite
 * built into Deno and into Node ≥ 22.5, with no native addon to install. Same schema and
 * migrations as `@latchkey/auth/sqlite`. Drizzle 0.45 has no `node:sqlite` driver; its `bun:sqlite`
 * session speaks the same synchronous dialect, so `DatabaseSync` is given that session's shape
 * here (prepare/run/all/get/values and a transaction with BEGIN IMMEDIATE).
 *
 * @example
 * import { migrateNodeSqlite, nodeSqliteStore, openNodeSqlite } from '@latchkey/auth/node-sqlite'
 * const db = openNodeSqlite('data/app.db')
 * migrateNodeSqlite(db)
 * const auth = createAuth({ secret, store: nodeSqliteStore(db), sendMail, getConnInfo })
 */

import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { fileURLToPath } from 'node:url'
import { createTableRelationsHelpers, extractTablesRelationalConfig } from 'drizzle-orm'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { SQLiteBunSession } from 'drizzle-orm/bun-sqlite/session'
import { BaseSQLiteDatabase, SQLiteSyncDialect } from 'drizzle-orm/sqlite-core'
import * as schema from '../sqlite/schema.js'
import { type SyncSqliteDb, syncSqliteStore } from '../sqlite/sync-store.js'
import type { Store, UserRecord } from '../store/types.js'

export * as schema from '../sqlite/schema.js'

/** Folder of the committed SQL migrations (the SQLite ones); shipped with the package. */
export const nodeSqliteMigrationsFolder = fileURLToPath(new URL('../../drizzle/sqlite', import.meta.url))

/** Opens (creating if needed) a database with the settings the store expects: WAL, foreign keys, a busy timeout. */
export const openNodeSqlite = (path: string): DatabaseSync => {
  const db = new DatabaseSync(path)
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('PRAGMA busy_timeout = 5000')
  return db
}

/** `DatabaseSync` in the shape of the `bun:sqlite` client Drizzle's session drives. */
const sessionClient = (db: DatabaseSync) => ({
  exec: (sql: string) => db.exec(sql),
  prepare(sql: string) {
    const statement = db.prepare(sql)
    let rows: StatementSync | undefined
    return {
      run: (...params: unknown[]) => statement.run(...params),
      all: (...params: unknown[]) => statement.all(...params),
      get: (...params: unknown[]) => statement.get(...params),
      // Rows as arrays, as Drizzle maps selected fields by position (names can repeat in a join).
      values(...params: unknown[]) {
        if (!rows) {
          rows = db.prepare(sql)
          rows.setReturnArrays(true)
        }
        return rows.all(...params)
      },
    }
  },
  transaction<T>(body: () => T) {
    const inMode = (mode: string) => () => {
      db.exec(`BEGIN ${mode}`)
      try {
        const result = body()
        db.exec('COMMIT')
        return result
      } catch (err) {
        if (db.isTransaction) db.exec('ROLLBACK')
        throw err
      }
    }
    return Object.assign(inMode('DEFERRED'), {
      deferred: inMode('DEFERRED'),
      immediate: inMode('IMMEDIATE'),
      exclusive: inMode('EXCLUSIVE'),
    })
  },
})

/**
 * A synchronous Drizzle database on a `node:sqlite` connection, with `schema` for relational
 * queries when given: for an app's own tables beside the library's (Drizzle has no driver of
 * its own for `node:sqlite` yet).
 */
export const drizzleNodeSqlite = <S extends Record<string, unknown> = Record<string, never>>(
  db: DatabaseSync,
  options: { schema?: S } = {},
): BaseSQLiteDatabase<'sync', { changes: number }, S> => {
  const dialect = new SQLiteSyncDialect()
  let relational: ConstructorParameters<typeof SQLiteBunSession>[2]
  if (options.schema) {
    const tables = extractTablesRelationalConfig(options.schema, createTableRelationsHelpers)
    relational = { fullSchema: options.schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap }
  }
  // biome-ignore lint/suspicious/noExplicitAny: the session is typed for bun:sqlite's Database, whose shape sessionClient gives.
  const session = new SQLiteBunSession(sessionClient(db) as any, dialect, relational, {})
  return new BaseSQLiteDatabase('sync', dialect, session, relational) as unknown as BaseSQLiteDatabase<
    'sync',
    { changes: number },
    S
  >
}

const drizzleOn = (db: DatabaseSync): SyncSqliteDb => drizzleNodeSqlite(db, { schema })

/** Creates or upgrades the library's tables (`auth_*`); idempotent, safe on every start. */
export const migrateNodeSqlite = (db: DatabaseSync): void => {
  // biome-ignore lint/suspicious/noExplicitAny: the migrator takes any synchronous SQLite Drizzle database.
  migrate(drizzleOn(db) as any, { migrationsFolder: nodeSqliteMigrationsFolder, migrationsTable: '__latchkey_migrations' })
}

/** A {@link Store} on a `node:sqlite` database. Call {@link migrateNodeSqlite} once before use. */
export const nodeSqliteStore = (db: DatabaseSync): Store<UserRecord> =>
  syncSqliteStore(drizzleOn(db), {
    set: (statement) => db.exec(`PRAGMA ${statement}`),
    get: (name) => Number(Object.values((db.prepare(`PRAGMA ${name}`).get() ?? {}) as object)[0]),
  })
