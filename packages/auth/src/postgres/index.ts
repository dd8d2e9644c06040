/**
 * `@latchkey/auth/postgres`: the PostgreSQL store, the shared rate-limit store, their schema,
 * and the one call that creates their tables. Requires `pg` (an optional peer dependency).
 */
import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import type { Pool, PoolClient } from 'pg'

export { type PostgresRateLimitOptions, type PostgresRateLimitStore, postgresRateLimitStore } from './rate-limit.js'
export * as schema from './schema.js'
export { postgresStore } from './store.js'

/** Folder of the committed SQL migrations; shipped with the package. */
export const postgresMigrationsFolder = fileURLToPath(new URL('../../drizzle/postgres', import.meta.url))

export interface MigratePostgresOptions {
  /**
   * Schema of the bookkeeping table `__latchkey_migrations`. Default: the connection's current
   * schema, where the tables go, so one app's database holds one schema. A database migrated
   * by an earlier version keeps its bookkeeping where it is (`drizzle`).
   */
  migrationsSchema?: string
}

/**
 * The connection's current schema, unless this schema's tables were migrated by a version
 * before 0.2, which kept the bookkeeping in `drizzle`: moving it would re-run every migration.
 */
const bookkeepingSchema = async (client: PoolClient): Promise<string> => {
  const { rows } = await client.query<{ current: string | null; here: boolean; legacy: boolean }>(
    `select current_schema() as current,
            to_regclass(format('%I.__latchkey_migrations', current_schema())) is not null as here,
            to_regclass(format('%I.auth_users', current_schema())) is not null
              and to_regclass('drizzle.__latchkey_migrations') is not null as legacy`,
  )
  const row = rows[0]
  if (!row?.current) throw new Error('migratePostgres: no schema on the search_path exists; create it first')
  return !row.here && row.legacy ? 'drizzle' : row.current
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
        migrationsSchema: options.migrationsSchema ?? (await bookkeepingSchema(client)),
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
