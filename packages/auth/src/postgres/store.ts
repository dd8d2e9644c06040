/**
 * The PostgreSQL store on Drizzle + node-postgres. It runs under READ COMMITTED with many
 * connections and many server instances, so single use and rotation are decided by conditional
 * `UPDATE … WHERE <still unspent> RETURNING`: of concurrent callers exactly one gets the row.
 * Row locks are always taken in one order (users → reset and email tokens, second factor,
 * recovery codes, challenges → sessions),
 * the order in which `ON DELETE CASCADE` takes them, so concurrent operations cannot deadlock.
 * It does not create tables: {@link migratePostgres} does.
 */
import { drizzle } from 'drizzle-orm/node-postgres'
import type { Pool } from 'pg'
import { postgresFeatureFacets } from '../feature-facets.js'
import type { Store, UserRecord } from '../store/types.js'
import { postgresAddCredentialCodes } from './add-credential-codes.js'
import type { PgDb } from './db.js'
import { postgresDevices } from './devices.js'
import { postgresEmailTokens } from './email-tokens.js'
import { postgresPrune } from './prune.js'
import { postgresResetTokens } from './reset-tokens.js'
import * as schema from './schema.js'
import { postgresSessions } from './sessions.js'
import { postgresUsers } from './users.js'

/**
 * A {@link Store} on a node-postgres `Pool`, each facet in a file of its own. Call
 * {@link migratePostgres} once before use. The tables are found through the connection's
 * `search_path` (normally `public`).
 *
 * @example
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migratePostgres(pool)
 * const auth = createAuth({ secret, store: postgresStore(pool), sendMail })
 */
export const postgresStore = (pool: Pool): Store<UserRecord> => {
  const db: PgDb = drizzle({ client: pool, schema })
  return {
    ...postgresUsers(db),
    ...postgresSessions(db),
    ...postgresResetTokens(db),
    ...postgresEmailTokens(db),
    ...postgresPrune(db),
    ...postgresAddCredentialCodes(db),
    ...postgresDevices(db),
    ...postgresFeatureFacets(db),
  }
}
