/**
 * What every PostgreSQL store facet shares: the database type and the locks of the store's lock
 * order (users → reset and email tokens, second factor, recovery codes, challenges → sessions, the
 * order in which `ON DELETE CASCADE` takes them, so concurrent operations cannot deadlock).
 */
import { eq } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type * as schema from './schema.js'
import { emailTokens, users } from './schema.js'

export type PgDb = NodePgDatabase<typeof schema>
/** A transaction of the PostgreSQL store. */
export type PgTx = Parameters<Parameters<PgDb['transaction']>[0]>[0]

/** Locks the user's row: the first lock of every multi-row step (the store's lock order). */
export const lockUser = (tx: PgTx, userId: string) =>
  tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update')

/** The SQLSTATE of a database error, through Drizzle's wrapping. */
export const sqlState = (err: unknown): unknown => {
  for (let e = err; e instanceof Error; e = e.cause) if ('code' in e && typeof e.code === 'string') return e.code
  return undefined
}

/** Locks the owner of an email token (users before tokens, the store's lock order); `null` when none. */
export const lockTokenOwner = async (tx: PgTx, tokenHash: string) => {
  const [owner] = await tx
    .select({ id: users.id, email: users.email })
    .from(emailTokens)
    .innerJoin(users, eq(users.id, emailTokens.userId))
    .where(eq(emailTokens.hash, tokenHash))
    .for('no key update', { of: users })
  return owner ?? null
}
