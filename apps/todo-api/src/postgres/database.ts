/**
 * The reference server on PostgreSQL: one `pg` pool per process for the auth store, the shared
 * rate limits and the todos. On open, the auth tables (@latchkey/auth's migrations) and then the
 * app's own (`drizzle/postgres/`) are brought up to date, each under an advisory lock, so several
 * instances may start at once. Loaded only when `DATABASE_URL` names PostgreSQL.
 */
import { fileURLToPath } from 'node:url'
import { schema as authSchema, migratePostgres, postgresRateLimitStore, postgresStore } from '@latchkey/auth/postgres'
import { count } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import type { AppDatabase } from '../db.js'
import { todos } from './schema.js'
import { postgresTodoStore } from './todo-store.js'

/** The app's PostgreSQL migrations; `drizzle/postgres` sits beside `src/` and `dist/`. */
export const postgresMigrationsFolder = fileURLToPath(new URL('../../drizzle/postgres', import.meta.url))

// Any fixed number other than @latchkey/auth's: every instance migrating the todos takes this one.
const TODO_MIGRATION_LOCK = 0x4c4b_5444

// A start against an unreachable server fails instead of hanging, and /health answers 503 in time.
const CONNECT_TIMEOUT_MS = 5_000

/** Runs the app's migrations under a session-level advisory lock held on one connection. */
const migrateTodos = async (pool: pg.Pool, migrationsSchema: string): Promise<void> => {
  const client = await pool.connect()
  let failure: Error | undefined
  try {
    await client.query('select pg_advisory_lock($1)', [TODO_MIGRATION_LOCK])
    try {
      await migrate(drizzle({ client }), {
        migrationsFolder: postgresMigrationsFolder,
        migrationsTable: '__todo_migrations',
        migrationsSchema,
      })
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TODO_MIGRATION_LOCK])
    }
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error))
    throw error
  } finally {
    // A connection that failed may still hold the lock: destroy it rather than pool it.
    client.release(failure)
  }
}

/**
 * Connects, migrates and returns the app's database on PostgreSQL. Tables and both migration
 * bookkeeping tables live in the connection's current schema (the first existing one on its
 * `search_path`, normally `public`), so apps or test runs in different schemas never mix.
 */
export const openPostgresDatabase = async (url: string): Promise<AppDatabase> => {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
  // An idle connection that dies (server restart, network) must not crash the process; the
  // pool replaces it and the next query reconnects.
  pool.on('error', (err) => console.error(`PostgreSQL: idle connection lost: ${err.message}`))
  try {
    const { rows } = await pool.query<{ schema: string | null }>('select current_schema() as schema')
    const schema = rows[0]?.schema
    if (!schema) throw new Error('no schema on the search_path exists; create it first (create schema …)')
    await migratePostgres(pool, { migrationsSchema: schema })
    await migrateTodos(pool, schema)
  } catch (err) {
    await pool.end().catch(() => undefined)
    throw err
  }

  const db = drizzle({ client: pool })
  return {
    authStore: postgresStore(pool),
    rateLimitStore: postgresRateLimitStore(pool),
    todos: postgresTodoStore(pool),
    async stats() {
      const [[users], [todoCount]] = await Promise.all([
        db.select({ n: count() }).from(authSchema.users),
        db.select({ n: count() }).from(todos),
      ])
      return { users: users?.n ?? 0, todos: todoCount?.n ?? 0 }
    },
    async ping() {
      try {
        return (await pool.query('select 1 as ok')).rowCount === 1
      } catch {
        return false
      }
    },
    async close() {
      if (!pool.ending) await pool.end()
    },
  }
}
