/**
 * The SQLite store on Drizzle over a synchronous driver: better-sqlite3 (Node), `bun:sqlite`
 * (Bun) or `node:sqlite` (Deno, Node ≥ 22.5); each subpath wraps this core with its driver. The
 * facets are the SQLite ones D1 runs too, on the synchronous executor (`sqlite/db.ts`): every
 * multi-statement step is one IMMEDIATE transaction, which takes the write lock up front and so
 * makes rotation and single-use consumption atomic across processes sharing the file. This module
 * imports no driver and only composes.
 */

import type { Store, UserRecord } from '../store/types.js'
import { type SqlitePragmas, type SyncSqliteDb, syncSteps } from './db.js'
import { sqliteFacets } from './facets.js'

export type { SqlitePragmas, SyncSqliteDb } from './db.js'

/**
 * The {@link Store} on a synchronous Drizzle SQLite database (`db`, made with `schema`) and its
 * driver's PRAGMA calls: each facet in a file of its own. Use the subpath of your driver
 * (`sqliteStore`, `bunSqliteStore`, …).
 */
export const syncSqliteStore = (db: SyncSqliteDb, pragmas: SqlitePragmas): Store<UserRecord> => {
  pragmas.set('foreign_keys = ON')
  return sqliteFacets(db, syncSteps(db, pragmas))
}
