/**
 * `@latchkey/auth/postgres`: the PostgreSQL store, the shared rate-limit store, their schema,
 * and the one call that creates their tables. Requires `pg` (an optional peer dependency).
 */
import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import type { Pool } from 'pg'

export { type PostgresRateLimitOptions, type PostgresRateLimitStore, postgresRateLimitStore } from './rate-limit.js'
export * as schema from './schema.js'
export { postgresStore } from './store.js'

/** Folder of the committed SQL migrations; shipped with the package. */
export const postgresMigrationsFolder = fileURLToPath(new URL('../../drizzle/postgres', import.meta.url))

export interface MigratePostgresOptions {
  /**
   * Schema of the bookkeeping table `__latchkey_migrations`. Default `drizzle`, Drizzle's own
   * default (created if missing); use the tables' schema when several apps share one database.
   */
  migrationsSchema?: string
}

// Any fixed number: every process migrating this database takes the same lock.
const MIGRATION_LOCK = 0x4c4b_4d47

/**
 * Creates or upgrades the library's tables (`auth_*`) in the connection's `search_path` schema.
 * Idempotent and safe on every start, also when several instances start at once: they wait
 * on one advisory lock, and the later ones find nothing left to do.
 * Uses its own bookkeeping table, so an app can keep its own Drizzle migrations beside it.
 *
 * @example
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migratePostgres(pool)
 */
export const migratePostgres = async (pool: Pool, options: MigratePostgresOptions = {}): Promise<void> => {
  const client = await pool.connect()
  let failure: Error | undefined
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      await migrate(drizzle({ client }), {
        migrationsFolder: postgresMigrationsFolder,
        migrationsTable: '__latchkey_migrations',
        migrationsSchema: options.migrationsSchema ?? 'drizzle',
      })
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error))
    throw error
  } finally {
    // A connection that failed may still hold the session-level lock: destroy it, don't pool it.
    client.release(failure)
  }
}
