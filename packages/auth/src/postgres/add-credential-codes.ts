/** The add-credential-code facet (`store/add-credential-codes.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { and, eq } from 'drizzle-orm'
import type { AddCredentialCodeStore } from '../store/add-credential-codes.js'
import { liveCode, oneMoreFailure } from '../store/predicates.js'
import type { PgDb } from './db.js'
import { addCredentialCodes } from './schema.js'

export const postgresAddCredentialCodes = (db: PgDb): AddCredentialCodeStore => ({
  async createAddCredentialCode({ userId, codeHash, expiresAt }) {
    const row = { hash: codeHash, failures: 0, expiresAt }
    await db
      .insert(addCredentialCodes)
      .values({ userId, ...row })
      .onConflictDoUpdate({ target: addCredentialCodes.userId, set: row })
  },

  async spendAddCredentialCode({ userId, codeHash, now, maxFailures }) {
    // Two conditional statements, each atomic on the row lock: the right hash deletes the live
    // row (one of concurrent callers gets it); otherwise a live row counts a wrong try.
    const live = liveCode(addCredentialCodes, userId, now, maxFailures)
    const spent = await db
      .delete(addCredentialCodes)
      .where(and(live, eq(addCredentialCodes.hash, codeHash)))
      .returning({ userId: addCredentialCodes.userId })
    if (spent.length === 1) return true
    await db
      .update(addCredentialCodes)
      .set({ failures: oneMoreFailure(addCredentialCodes) })
      .where(live)
    return false
  },
})
