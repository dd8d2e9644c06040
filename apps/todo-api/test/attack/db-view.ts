/**
 * The attack suite's read-only look at the server's database, on either store: row counts and a
 * fingerprint of every row (equal means nothing was added, removed or changed), one user's rows,
 * and every stored secret-derived value. And the store a suite runs on: where the server's
 * database is, and how to start a server on it. Nothing here writes.
 */
import { createHash } from 'node:crypto'
import Database from 'better-sqlite3'
import pg from 'pg'
import { freshPostgresSchema, type PostgresSchema, postgresUnreachable, type StartOptions } from '../support.js'

export const TABLES = [
  'auth_users',
  'auth_sessions',
  'auth_reset_tokens',
  'todos',
  'auth_api_keys',
  'auth_identities',
  'auth_oauth_flows',
] as const
export type Table = (typeof TABLES)[number]
export type Counts = Record<Table, number>

export interface DbSnapshot {
  counts: Counts
  /** SHA-256 over every row of every table: equal means no row was added, removed or changed. */
  fingerprint: string
  /**
   * The same without the API keys' `last_used_at`: the guard writes a key's use (at most once a
   * minute) when it admits the key, before the route may still refuse the request
   * (docs/guide/api-keys.md): equal means nothing else changed.
   */
  fingerprintButKeyUse: string
}

export interface DbView {
  snapshot(): Promise<DbSnapshot>
  /** Every row that belongs to one user (account, sessions with their refresh hashes, API keys, identities, provider flows, todos), as JSON. */
  userRows(userId: string): Promise<string>
  /**
   * Every stored secret-derived value: password hashes, the hashes of refresh values, reset and
   * email tokens, mailed codes and API keys, the provider flows' cookie and state hashes and
   * nonces, and the sealed provider tokens.
   */
  storedHashes(): Promise<string[]>
  /** `true` when a reset token with this hash is stored and unused. */
  resetTokenLive(hash: string): Promise<boolean>
  /** A user's role and password hash as stored. */
  userRoleAndHash(userId: string): Promise<{ role: string | null; hash: string } | undefined>
  /** Rows of one query; write `?` for parameters on either store. */
  query<R>(sql: string, ...params: unknown[]): Promise<R[]>
  close(): Promise<void>
}

const HASHES = `select password_hash from auth_users
  union all select refresh_hash from auth_sessions where refresh_hash is not null
  union all select previous_refresh_hash from auth_sessions where previous_refresh_hash is not null
  union all select refresh_key_hash from auth_sessions where refresh_key_hash is not null
  union all select hash from auth_reset_tokens
  union all select hash from auth_email_tokens
  union all select hash from auth_add_credential_codes
  union all select token_hash from auth_email_sign_ins
  union all select flow_hash from auth_email_sign_ins
  union all select code_hash from auth_email_sign_ins
  union all select device_hash from auth_devices
  union all select hash from auth_api_keys
  union all select hash from auth_oauth_flows
  union all select state_hash from auth_oauth_flows
  union all select nonce from auth_oauth_flows where nonce is not null
  union all select sealed_tokens from auth_identities where sealed_tokens is not null`
const OF_USER = [
  'select * from auth_users where id = ?',
  'select * from auth_sessions where user_id = ? order by id',
  'select * from auth_api_keys where user_id = ? order by id',
  'select * from auth_identities where user_id = ? order by id',
  'select * from auth_oauth_flows where user_id = ? order by hash',
  'select * from todos where user_id = ? order by id',
]

type Query = <R>(sql: string, params: unknown[]) => Promise<R[]>
/** The rows of several statements without parameters, in order: on PostgreSQL one round trip for all. */
type QueryAll = (sqls: string[]) => Promise<Record<string, unknown>[][]>

/** A view built on one `query` function (and `queryAll`, the same for several statements), the same on both stores. */
const viewOn = (query: Query, queryAll: QueryAll, close: () => Promise<void>): DbView => ({
  async snapshot() {
    const digest = createHash('sha256')
    const butKeyUse = createHash('sha256')
    const counts = {} as Counts
    // The first column of every table is its primary key: a stable order on both stores.
    const tables = await queryAll(TABLES.map((table) => `select * from ${table} order by 1`))
    TABLES.forEach((table, i) => {
      const rows = tables[i] ?? []
      counts[table] = rows.length
      digest.update(`${table}:${JSON.stringify(rows)}\n`)
      const kept = table === 'auth_api_keys' ? rows.map(({ last_used_at: _, ...row }) => row) : rows
      butKeyUse.update(`${table}:${JSON.stringify(kept)}\n`)
    })
    return { counts, fingerprint: digest.digest('hex'), fingerprintButKeyUse: butKeyUse.digest('hex') }
  },
  userRows: async (userId) => JSON.stringify(await Promise.all(OF_USER.map((sql) => query(sql, [userId])))),
  storedHashes: async () => (await query<Record<string, string>>(HASHES, [])).map((row) => Object.values(row)[0] ?? ''),
  resetTokenLive: async (hash) =>
    (await query('select 1 as live from auth_reset_tokens where hash = ? and used_at is null', [hash])).length > 0,
  userRoleAndHash: async (userId) =>
    (
      await query<{ role: string | null; hash: string }>('select role, password_hash as hash from auth_users where id = ?', [
        userId,
      ])
    )[0],
  query: (sql, ...params) => query(sql, params),
  close,
})

/** A read-only connection to a SQLite file. */
export const openSqliteView = (path: string): DbView => {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  return viewOn(
    async <R>(sql: string, params: unknown[]) => db.prepare(sql).all(...params) as R[],
    async (sqls) => sqls.map((sql) => db.prepare(sql).all() as Record<string, unknown>[]),
    async () => {
      db.close()
    },
  )
}

/**
 * Connections to a PostgreSQL schema on which every transaction is read-only
 * (`default_transaction_read_only`), so a statement that writes fails: one round trip a query,
 * not the four of a `begin read only` … `commit` around each.
 */
export const openPostgresView = (url: string): DbView => {
  const readOnly = new URL(url)
  readOnly.searchParams.set('options', `${readOnly.searchParams.get('options') ?? ''} -c default_transaction_read_only=on`.trim())
  const pool = new pg.Pool({ connectionString: readOnly.href, max: 2 })
  return viewOn(
    async <R>(sql: string, params: unknown[]) => {
      let n = 0
      const text = sql.replace(/\?/g, () => `$${++n}`)
      return (await pool.query(text, params)).rows as R[]
    },
    async (sqls) => {
      // Several statements in one simple query: one round trip, one result each (an array only when more than one).
      const results = (await pool.query(sqls.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[]
      return (Array.isArray(results) ? results : [results]).map((result) => result.rows as Record<string, unknown>[])
    },
    () => pool.end(),
  )
}

export type StoreName = 'sqlite' | 'postgres'

export interface AttackStore {
  name: StoreName
  /** Why this store cannot run here, or `null`. */
  skip: string | null
  /** Options for `startServer` that put its database on this store, and the view and cleanup that go with it. */
  prepare(): Promise<{ env: StartOptions['env']; view(server: { dbPath: string }): DbView; drop(): Promise<void> }>
}

export const ATTACK_STORES: AttackStore[] = [
  {
    name: 'sqlite',
    skip: null,
    prepare: async () => ({ env: {}, view: (server) => openSqliteView(server.dbPath), drop: async () => {} }),
  },
  {
    name: 'postgres',
    skip: await postgresUnreachable(),
    async prepare() {
      const schema: PostgresSchema = await freshPostgresSchema()
      return { env: { DATABASE_URL: schema.url }, view: () => openPostgresView(schema.url), drop: () => schema.drop() }
    },
  },
]

/** One store by name, for a file that runs a suite on it. */
export const attackStore = (name: StoreName): AttackStore => ATTACK_STORES.find((s) => s.name === name) as AttackStore
