/**
 * The PostgreSQL revocation primitive (docs/reference/lifecycle.md#what-each-account-event-revokes):
 * runs a revocation's plan inside the caller's transaction, the event's atomic step, in the store's
 * lock order (the user's row, then tokens, second factor, recovery codes, challenges, API keys,
 * identities, sessions).
 */
import { eq } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { REVOKED_TABLES, type RevocationScope, type RevokedTable, revocationPlan, writesUser } from '../store/revocation.js'
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

/** A transaction of the PostgreSQL store (or the database itself, for a single statement). */
export type PgTx = Parameters<Parameters<NodePgDatabase<typeof schema>['transaction']>[0]>[0]

/** Applies the revocation for `scope.userId` (an id); answers the ids of the sessions it deleted. */
export const revokePostgres = async (tx: PgTx, scope: RevocationScope & { userId: string }): Promise<string[]> => {
  const { rows, user } = revocationPlan(schema, scope)
  if (writesUser({ rows, user })) await tx.update(users).set(user).where(eq(users.id, scope.userId))
  for (const table of REVOKED_TABLES) {
    const where = rows[table]
    if (where && table !== 'sessions') await tx.delete(revocable[table]).where(where)
  }
  if (!rows.sessions) return []
  const revoked = await tx.delete(sessions).where(rows.sessions).returning({ id: sessions.id })
  return revoked.map((row) => row.id)
}
