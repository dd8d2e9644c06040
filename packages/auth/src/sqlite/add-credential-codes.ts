/** The add-credential-code facet (`store/add-credential-codes.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, eq } from 'drizzle-orm'
import type { AddCredentialCodeStore } from '../store/add-credential-codes.js'
import { liveCode, oneMoreFailure } from '../store/predicates.js'
import type { Durable, SyncSqliteDb } from './db.js'
import { addCredentialCodes } from './schema.js'

export const sqliteAddCredentialCodes = (db: SyncSqliteDb, durable: Durable): AddCredentialCodeStore => ({
  async createAddCredentialCode({ userId, codeHash, expiresAt }) {
    const row = { hash: codeHash, failures: 0, expiresAt }
    db.insert(addCredentialCodes)
      .values({ userId, ...row })
      .onConflictDoUpdate({ target: addCredentialCodes.userId, set: row })
      .run()
  },

  async spendAddCredentialCode({ userId, codeHash, now, maxFailures }) {
    const live = liveCode(addCredentialCodes, userId, now, maxFailures)
    return durable(() => {
      // Two statements, each atomic: the right hash deletes the live row; otherwise a live row counts a wrong try.
      if (
        db
          .delete(addCredentialCodes)
          .where(and(live, eq(addCredentialCodes.hash, codeHash)))
          .run().changes === 1
      )
        return true
      db.update(addCredentialCodes)
        .set({ failures: oneMoreFailure(addCredentialCodes) })
        .where(live)
        .run()
      return false
    })
  },
})
