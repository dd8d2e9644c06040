/**
 * The sign-in-by-email facet on a synchronous SQLite driver (better-sqlite3, `bun:sqlite`,
 * `node:sqlite`): each step is one IMMEDIATE transaction, which holds the write lock from its
 * first statement, so a claim and a settle are atomic across processes sharing the file.
 */
import { and, eq, inArray, isNotNull, lte, or, sql } from 'drizzle-orm'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import { revokeSync } from '../sqlite/revoke.js'
import type * as schema from '../sqlite/schema.js'
import { emailSignIns, users } from '../sqlite/schema.js'
import { NO_PASSWORD } from '../store/rows.js'
import { claimedColumns, claimOutcome, claimStep, flowColumns, liveFlow, sameSlot } from './claim.js'
import type { EmailSignInStore } from './store.js'

/** What settling reads of the account. */
const accountColumns = { id: users.id, emailVerified: users.emailVerified, credentialsVersion: users.credentialsVersion }

type Db = BaseSQLiteDatabase<'sync', { changes: number }, typeof schema>

export const emailSignInSqlite = (db: Db, durable: <T>(write: () => T) => T): EmailSignInStore => {
  const immediate = { behavior: 'immediate' } as const
  return {
    async startEmailSignIn({ flowHash, tokenHash, codeHash, email, deviceHash, expiresAt, now, signUp }) {
      return db.transaction((tx) => {
        const account = tx.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, email)).get()
        tx.delete(emailSignIns)
          .where(sameSlot(emailSignIns, email, deviceHash))
          .run()
        tx.insert(emailSignIns)
          .values({
            flowHash,
            tokenHash,
            codeHash,
            email,
            userId: account?.id ?? null,
            expiresAt,
            usedAt: account || signUp ? null : now,
            deviceHash,
          })
          .run()
        return account ? { userId: account.id, email: account.email } : null
      }, immediate)
    },

    async findEmailSignInFlow(flowHash, now, maxAttempts) {
      return (
        db
          .select(flowColumns(emailSignIns))
          .from(emailSignIns)
          .where(liveFlow(emailSignIns, flowHash, now, maxAttempts))
          .get() ?? null
      )
    },

    async claimEmailSignIn(proof, now, maxAttempts) {
      const { set, where } = claimStep(emailSignIns, proof, now, maxAttempts, sql`${now.getTime()}`)
      const row = durable(() => db.update(emailSignIns).set(set).where(where).returning(claimedColumns(emailSignIns)).get())
      return claimOutcome(row)
    },

    async settleEmailSignIn({ email, userId, newUser, revoke }) {
      return durable(() =>
        db.transaction((tx) => {
          const created = newUser
            ? tx
                .insert(users)
                .values({ ...newUser, email, passwordHash: NO_PASSWORD, emailVerified: true })
                .onConflictDoNothing({ target: users.email })
                .run().changes === 1
            : false
          const theAccount = userId ? and(eq(users.id, userId), eq(users.email, email)) : eq(users.email, email)
          const before = tx.select(accountColumns).from(users).where(theAccount).get()
          if (!before) return null
          const settled = !before.emailVerified
          let revokedSessionIds: string[] = []
          if (settled) {
            tx.update(users).set({ emailVerified: true }).where(eq(users.id, before.id)).run()
            revokedSessionIds = revokeSync(tx, { userId: before.id, revoke })
          }
          const after = tx.select(accountColumns).from(users).where(eq(users.id, before.id)).get()
          if (!after) return null
          return { userId: after.id, credentialsVersion: after.credentialsVersion, created, settled, revokedSessionIds }
        }, immediate),
      )
    },

    async pruneEmailSignIns(now, limit) {
      const dead = db
        .select({ flowHash: emailSignIns.flowHash })
        .from(emailSignIns)
        .where(or(isNotNull(emailSignIns.usedAt), lte(emailSignIns.expiresAt, now)))
        .limit(limit)
      return db.delete(emailSignIns).where(inArray(emailSignIns.flowHash, dead)).run().changes
    },
  }
}
