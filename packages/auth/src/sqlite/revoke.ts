/**
 * The SQLite revocation primitive (docs/reference/lifecycle.md#what-each-account-event-revokes):
 * runs a revocation's plan inside the caller's IMMEDIATE transaction, the event's atomic step.
 */
import { eq } from 'drizzle-orm'
import { REVOKED_TABLES, type RevocationScope, type RevokedTable, revocationPlan, writesUser } from '../store/revocation.js'
import type { SyncSqliteDb } from './db.js'
import * as schema from './schema.js'
import { challenges, emailTokens, recoveryCodes, resetTokens, sessions, twoFactors, users } from './schema.js'

/** The table of each revoked kind of row but sessions (whose ids the primitive answers). */
const revocable = { resetTokens, emailTokens, twoFactors, recoveryCodes, challenges } satisfies Record<
  Exclude<RevokedTable, 'sessions'>,
  unknown
>

/** Applies the revocation for `scope.userId` (an id); answers the ids of the sessions it deleted. */
export const revokeSync = (tx: SyncSqliteDb, scope: RevocationScope & { userId: string }): string[] => {
  const { rows, user } = revocationPlan(schema, scope)
  if (writesUser({ rows, user })) tx.update(users).set(user).where(eq(users.id, scope.userId)).run()
  for (const table of REVOKED_TABLES) {
    const where = rows[table]
    if (where && table !== 'sessions') tx.delete(revocable[table]).where(where).run()
  }
  if (!rows.sessions) return []
  return tx
    .delete(sessions)
    .where(rows.sessions)
    .returning({ id: sessions.id })
    .all()
    .map((row) => row.id)
}
