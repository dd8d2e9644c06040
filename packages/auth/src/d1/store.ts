/**
 * The store on Cloudflare D1 (Workers), on Drizzle's D1 driver and the SQLite schema: the SQLite
 * facets (`sqlite/<facet>.ts`, `<feature>/sqlite-store.ts`) on the D1 executor, every atomic step one
 * guarded batch (`d1/db.ts`). Only composes.
 */
import { drizzle } from 'drizzle-orm/d1'
import { emailSignInSqlite } from '../email-sign-in/sqlite.js'
import { sqlitePasskeyStore } from '../passkeys/sqlite-store.js'
import { sqliteAddCredentialCodes } from '../sqlite/add-credential-codes.js'
import { sqliteDevices } from '../sqlite/devices.js'
import { sqliteEmailTokens } from '../sqlite/email-tokens.js'
import { sqlitePrune } from '../sqlite/prune.js'
import { sqliteResetTokens } from '../sqlite/reset-tokens.js'
import * as schema from '../sqlite/schema.js'
import { sqliteSessions } from '../sqlite/sessions.js'
import { sqliteUsers } from '../sqlite/users.js'
import type { Store, UserRecord } from '../store/types.js'
import { sqliteTwoFactor } from '../two-factor/sqlite-store.js'
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
  const steps = d1Steps(db)
  return {
    ...sqliteUsers(db, steps),
    ...sqliteSessions(db, steps),
    ...sqliteResetTokens(db, steps),
    ...sqliteEmailTokens(db, steps),
    ...sqlitePrune(db, steps),
    ...sqliteTwoFactor(db, steps),
    ...sqliteAddCredentialCodes(db, steps),
    ...sqliteDevices(db, steps),
    ...emailSignInSqlite(db, steps),
    ...sqlitePasskeyStore(db),
  }
}
