/** The passkey facet's query conditions, one home for the SQLite and PostgreSQL stores. */
import { and, type Column, eq, type SQL } from 'drizzle-orm'
import { unspent } from '../store/predicates.js'
import type { PasskeyChallengePurpose } from './store.js'

/** One of the user's passkeys. */
export const ownPasskey = (t: { id: Column; userId: Column }, userId: string, id: string) =>
  and(eq(t.id, id), eq(t.userId, userId)) as SQL

/** A challenge of `purpose` that can still be claimed at `now`. */
export const claimablePasskeyChallenge = (
  t: { hash: Column; purpose: Column; usedAt: Column; expiresAt: Column },
  hash: string,
  purpose: PasskeyChallengePurpose,
  now: Date,
) => and(eq(t.hash, hash), eq(t.purpose, purpose), unspent(t, now)) as SQL

/** What claiming a challenge answers. */
export const boundColumns = <T extends { userId: Column; boundTo: Column }>(
  t: T,
): { userId: T['userId']; boundTo: T['boundTo'] } => ({
  userId: t.userId,
  boundTo: t.boundTo,
})
