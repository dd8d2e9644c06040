/**
 * The store on Cloudflare D1 (Workers), on Drizzle's D1 driver and the SQLite schema: the SQLite
 * facets (`sqlite/<facet>.ts`, `<feature>/sqlite-store.ts`) on the D1 executor, every atomic step one
 * guarded batch (`d1/db.ts`). Only composes.
 */
import { drizzle } from 'drizzle-orm/d1'
import { sqliteFacets } from '../sqlite/facets.js'
import * as schema from '../sqlite/schema.js'
import type { Store, UserRecord } from '../store/types.js'
import { d1Steps } from './db.js'

/** The part of a D1 binding (`env.DB`) the store uses. */
export interface D1DatabaseLike {
  prepare(query: string): unknown
  batch(statements: unknown[]): Promise<unknown[]>
  exec(query: string): Promise<unknown>
}

/**
 * A {@link Store} on a D1 database. Call {@link migrateD1} once before use (e.g. at deploy).
 *
 * @example
 * const auth = createAuth({ secret: env.AUTH_SECRET, store: d1Store(env.DB), getConnInfo, sendMail })
 */
export const d1Store = (client: D1DatabaseLike): Store<UserRecord> => {
  // biome-ignore lint/suspicious/noExplicitAny: Drizzle types the client as Cloudflare's D1Database, which this package does not import.
  const db = drizzle(client as any, { schema })
  return sqliteFacets(db, d1Steps(db))
}
