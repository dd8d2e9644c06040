/** The add-credential-code facet (`store/add-credential-codes.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { and, eq } from 'drizzle-orm'
import type { AddCredentialCodeStore } from '../store/add-credential-codes.js'
import { liveCode, oneMoreFailure } from '../store/predicates.js'
import { changes, type SqliteDb, type SqliteSteps } from './db.js'
import { addCredentialCodes } from './schema.js'

export const sqliteAddCredentialCodes = (db: SqliteDb, steps: SqliteSteps): AddCredentialCodeStore => ({
  async createAddCredentialCode({ userId, codeHash, expiresAt }) {
    const row = { hash: codeHash, failures: 0, expiresAt }
    await db
      .insert(addCredentialCodes)
      .values({ userId, ...row })
      .onConflictDoUpdate({ target: addCredentialCodes.userId, set: row })
      .run()
  },

  async spendAddCredentialCode({ userId, codeHash, now, maxFailures }) {
    // Two statements, each atomic (SQLite runs one writer at a time): the right hash deletes the
    // live row; otherwise a live row counts a wrong try.
    const live = liveCode(addCredentialCodes, userId, now, maxFailures)
    const right = and(live, eq(addCredentialCodes.hash, codeHash))
    if (changes(await steps.durable(() => db.delete(addCredentialCodes).where(right).run())) === 1) return true
    await steps.durable(() =>
      db
        .update(addCredentialCodes)
        .set({ failures: oneMoreFailure(addCredentialCodes) })
        .where(live)
        .run(),
    )
    return false
  },
})
