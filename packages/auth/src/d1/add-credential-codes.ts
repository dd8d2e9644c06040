/** The add-credential-code facet (`store/add-credential-codes.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { and, eq } from 'drizzle-orm'
import { addCredentialCodes } from '../sqlite/schema.js'
import type { AddCredentialCodeStore } from '../store/add-credential-codes.js'
import { liveCode, oneMoreFailure } from '../store/predicates.js'
import { changes, type D1Db } from './db.js'

export const d1AddCredentialCodes = (db: D1Db): AddCredentialCodeStore => ({
  async createAddCredentialCode({ userId, codeHash, expiresAt }) {
    const row = { hash: codeHash, failures: 0, expiresAt }
    await db
      .insert(addCredentialCodes)
      .values({ userId, ...row })
      .onConflictDoUpdate({ target: addCredentialCodes.userId, set: row })
      .run()
  },

  async spendAddCredentialCode({ userId, codeHash, now, maxFailures }) {
    // Two statements, each atomic (D1 runs one at a time): the right hash deletes the live row;
    // otherwise a live row counts a wrong try.
    const live = liveCode(addCredentialCodes, userId, now, maxFailures)
    const right = and(live, eq(addCredentialCodes.hash, codeHash))
    if (changes(await db.delete(addCredentialCodes).where(right).run()) === 1) return true
    await db
      .update(addCredentialCodes)
      .set({ failures: oneMoreFailure(addCredentialCodes) })
      .where(live)
      .run()
    return false
  },
})
