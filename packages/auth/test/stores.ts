/**
 * The stores every storage-touching test runs on: a SQLite file, and a fresh schema of the
 * PostgreSQL server the probe found (`postgres-probe.ts`). Without a reachable server the
 * PostgreSQL runs skip, and the reason is printed once.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'vitest'
import { migratePostgres, postgresStore } from '../src/postgres/index.js'
import { migrateSqlite, openSqlite, sqliteStore } from '../src/sqlite/index.js'
import type { Store, UserRecord } from '../src/store/types.js'
import { freshPostgresSchema, pgUnreachable } from './postgres-probe.js'

export { PG_URL, pgUnreachable } from './postgres-probe.js'

/** A fresh schema with the auth tables migrated (unless `migrate: false`). */
export const freshSchema = async ({ migrate = true } = {}) => {
  const schema = await freshPostgresSchema()
  if (migrate) await migratePostgres(schema.pool, { migrationsSchema: schema.name })
  return schema
}

export interface OpenedStore {
  store: Store<UserRecord>
  /** Rows of a table, for tests that check what was (not) written. */
  count(table: string): Promise<number>
  /** Every row of a table as the database holds it, for tests that look for what must not be stored. */
  rows(table: string): Promise<Record<string, unknown>[]>
  close(): Promise<void>
}

export interface StoreKind {
  name: 'sqlite' | 'postgres'
  /** Why this store cannot run here, or `null`. */
  skip: string | null
  open(): Promise<OpenedStore>
}

export const STORES: StoreKind[] = [
  {
    name: 'sqlite',
    skip: null,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'latchkey-test-'))
      const db = openSqlite(join(dir, 'auth.db'))
      migrateSqlite(db)
      return {
        store: sqliteStore(db),
        count: async (table) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n,
        rows: async (table) => db.prepare(`select * from ${table}`).all() as Record<string, unknown>[],
        close: async () => {
          db.close()
          rmSync(dir, { recursive: true, force: true })
        },
      }
    },
  },
  {
    name: 'postgres',
    skip: pgUnreachable,
    async open() {
      const db = await freshSchema()
      return {
        store: postgresStore(db.pool),
        count: db.count,
        rows: (table) => db.query(`select * from ${table}`),
        close: db.drop,
      }
    },
  },
]

/**
 * `describe.each(STORES)` with a fresh store per test: `body` gets the open store (`opened()`,
 * inside a test) and `run`, which skips, saying why, on a store that cannot run here.
 */
export const onEveryStore = (
  title: string,
  body: (store: { opened: () => OpenedStore; run: ReturnType<typeof it.skipIf> }) => void,
) =>
  describe.each(STORES)(title, ({ skip, open }) => {
    let opened: OpenedStore | undefined
    beforeEach(async () => {
      if (!skip) opened = await open()
    })
    afterEach(async () => {
      await opened?.close()
      opened = undefined
    })
    body({
      opened: () => {
        if (!opened) throw new Error('onEveryStore: no store outside a test')
        return opened
      },
      run: it.skipIf(skip !== null),
    })
  })
