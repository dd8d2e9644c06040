/**
 * The stores every storage-touching test runs on: a SQLite file, and a fresh schema of the
 * PostgreSQL server at `PG_TEST_URL` (default postgres://postgres@127.0.0.1:5432/test). Without a
 * reachable server the PostgreSQL runs skip, and the reason is printed once.
 */

import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { migratePostgres, postgresStore } from '../src/postgres/index.js'
import { migrateSqlite, openSqlite, sqliteStore } from '../src/sqlite/index.js'
import type { Store, UserRecord } from '../src/store/types.js'

export const PG_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Why PostgreSQL tests cannot run here, or `null` when the server answers. */
export const pgUnreachable: string | null = await (async () => {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    await client.end().catch(() => undefined)
  }
})()
if (pgUnreachable) {
  const shown = new URL(PG_URL)
  if (shown.password) shown.password = '***'
  console.warn(`PostgreSQL not reachable at ${shown.href} (${pgUnreachable}): skipping the PostgreSQL tests. Set PG_TEST_URL.`)
}

/** A fresh schema and pools whose connections use it; `connect()` opens another "instance". */
export const freshSchema = async ({ migrate = true } = {}) => {
  const name = `lk_${randomBytes(6).toString('hex')}`
  const pools: pg.Pool[] = []
  const connect = () => {
    const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${name}` })
    pools.push(pool)
    return pool
  }
  const pool = connect()
  await pool.query(`create schema ${name}`)
  if (migrate) await migratePostgres(pool, { migrationsSchema: name })
  const count = async (table: string): Promise<number> =>
    Number((await pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]?.n)
  const drop = async () => {
    await pool.query(`drop schema ${name} cascade`)
    await Promise.all(pools.map((p) => p.end()))
  }
  return { name, pool, connect, count, drop }
}

export interface OpenedStore {
  store: Store<UserRecord>
  /** Rows of a table, for tests that check what was (not) written. */
  count(table: string): Promise<number>
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
      return { store: postgresStore(db.pool), count: db.count, close: db.drop }
    },
  },
]
