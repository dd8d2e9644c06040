/**
 * The SQLite revocation primitive for every driver the schema runs on
 * (docs/reference/lifecycle.md#what-each-account-event-revokes): a revocation becomes statements
 * of the event's atomic step (`sqlite/db.ts`), each carrying the event's guard (read before the
 * step), placed before the statement that ends the guard. What it writes on the user's row goes
 * into the event's own update of that row (`user`), or into `userUpdate` when the event writes none.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm'
import { REVOKED_TABLES, type RevocationScope, type RevokedTable, revocationPlan } from '../store/revocation.js'
import type { SqliteDb } from './db.js'
import * as schema from './schema.js'
import {
  apiKeys,
  challenges,
  emailTokens,
  identities,
  recoveryCodes,
  resetTokens,
  sessions,
  twoFactors,
  users,
} from './schema.js'

/** The table of each revoked kind of row but sessions (whose ids the primitive answers). */
const revocable = { resetTokens, emailTokens, twoFactors, recoveryCodes, challenges, apiKeys, identities } satisfies Record<
  Exclude<RevokedTable, 'sessions'>,
  unknown
>

/** What a revocation adds to an atomic step, every statement guarded by `guard` (none: unguarded). */
export const revokeSteps = (db: SqliteDb, scope: RevocationScope, guard: SQL | undefined) => {
  const { rows, user } = revocationPlan(schema, scope)
  const guarded = (where: SQL | undefined) => and(where ?? sql`0`, guard) as SQL
  return {
    /** The deletes of every table but sessions, in one statement each (a spared table: none). */
    deletes: REVOKED_TABLES.flatMap((table) => {
      const where = rows[table]
      return where && table !== 'sessions' ? [db.delete(revocable[table]).where(guarded(where))] : []
    }),
    /** Deletes the revoked sessions (none when spared), answering their ids. */
    sessions: db.delete(sessions).where(guarded(rows.sessions)).returning({ id: sessions.id }),
    /** The columns the revocation writes on the user's row. */
    user,
    /** An update of the user's row with only those columns, for an event that writes no other. */
    userUpdate: db
      .update(users)
      .set({ credentialsVersion: sql`${users.credentialsVersion}`, ...user })
      .where(guarded(Object.keys(user).length > 0 ? eq(users.id, scope.userId) : undefined)),
  }
}

/**
 * The rows the last statement of a step answered: the statement that ends the guard comes after
 * a revocation's, whose number varies, so its place in the results is known only at run time.
 */
export const lastRows = <Row>(results: readonly unknown[]): Row[] => (results.at(-1) ?? []) as Row[]
