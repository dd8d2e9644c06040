/**
 * The one PostgreSQL probe of every test in the repository (the library's and the reference
 * app's): the server at `PG_TEST_URL` (default postgres://postgres@127.0.0.1:5432/test, trust
 * auth), whether it answers (the reason is printed once when not, so a skip says why), and fresh
 * schemas so test files and runs never share tables. It depends on `pg` only.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

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

export interface PostgresSchema {
  name: string
  /** `PG_TEST_URL` with `options=-c search_path=<name>`: a `DATABASE_URL` for a server process. */
  url: string
  /** A pool whose connections use the schema. */
  pool: pg.Pool
  /** Another pool on the schema: another "instance". */
  connect(): pg.Pool
  /** A query in this schema. */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>
  /** Rows of a table. */
  count(table: string): Promise<number>
  /** Drops the schema with everything in it and ends every pool. */
  drop(): Promise<void>
}

/** A fresh, empty schema on the test server. */
export const freshPostgresSchema = async (): Promise<PostgresSchema> => {
  const name = `lk_${randomBytes(6).toString('hex')}`
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${name}`)}`
  const pools: pg.Pool[] = []
  const connect = () => {
    const pool = new pg.Pool({ connectionString: url })
    pools.push(pool)
    return pool
  }
  const pool = connect()
  await pool.query(`create schema ${name}`)
  const query = async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => (await pool.query<R>(text, values)).rows
  return {
    name,
    url,
    pool,
    connect,
    query,
    count: async (table) => Number((await query<{ n: string }>(`select count(*) as n from ${table}`))[0]?.n),
    async drop() {
      await pool.query(`drop schema ${name} cascade`)
      await Promise.all(pools.map((p) => p.end()))
    },
  }
}
