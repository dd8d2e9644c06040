/**
 * The SQLite family's store: every facet, each written once for better-sqlite3, `bun:sqlite`,
 * `node:sqlite` and D1, on the executor of the driver (`sqlite/db.ts`: `syncSteps`, `d1Steps`).
 * `sync-store.ts` and `d1/store.ts` hand it their database and executor; the core's facets are
 * listed here, the features' come from their list (`feature-facets.ts`).
 */

import { sqliteFeatureFacets } from '../feature-facets.js'
import type { Store, UserRecord } from '../store/types.js'
import { sqliteAddCredentialCodes } from './add-credential-codes.js'
import type { SqliteDb, SqliteSteps } from './db.js'
import { sqliteDevices } from './devices.js'
import { sqliteEmailTokens } from './email-tokens.js'
import { sqlitePrune } from './prune.js'
import { sqliteResetTokens } from './reset-tokens.js'
import { sqliteSessions } from './sessions.js'
import { sqliteUsers } from './users.js'

export const sqliteFacets = (db: SqliteDb, steps: SqliteSteps): Store<UserRecord> => ({
  ...sqliteUsers(db, steps),
  ...sqliteSessions(db, steps),
  ...sqliteResetTokens(db, steps),
  ...sqliteEmailTokens(db, steps),
  ...sqlitePrune(db, steps),
  ...sqliteAddCredentialCodes(db, steps),
  ...sqliteDevices(db, steps),
  ...sqliteFeatureFacets(db, steps),
})
