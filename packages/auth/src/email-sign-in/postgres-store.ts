/**
 * The sign-in-by-email facet on PostgreSQL (READ COMMITTED, many connections and instances).
 * A claim is one conditional `UPDATE … RETURNING`: of concurrent claims on one row the others
 * wait for the first and then find it spent. Starting a sign-in takes a transaction-scoped
 * advisory lock on the address, so two requests for one address and browser cannot both leave a
 * live mail.
 * Settling locks the user's row first (the store's lock order: users → tokens, second factor,
 * challenges → sessions).
 */
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { revokePostgres } from '../postgres/revoke.js'
import type * as schema from '../postgres/schema.js'
import { users } from '../postgres/tables.js'
import { NO_PASSWORD } from '../store/rows.js'
import { claimedColumns, claimOutcome, claimStep, deadSignIn, flowColumns, liveFlow, sameSlot } from './claim.js'
import { emailSignIns } from './postgres-tables.js'
import type { EmailSignInStore } from './store.js'

/** What settling reads of the account. */
const accountColumns = { id: users.id, emailVerified: users.emailVerified, credentialsVersion: users.credentialsVersion }

type Db = NodePgDatabase<typeof schema>

export const emailSignInPostgres = (db: Db): EmailSignInStore => ({
  async startEmailSignIn({ flowHash, tokenHash, codeHash, email, deviceHash, expiresAt, now, signUp }) {
    return db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`latchkey:email-sign-in:${email}`}, 0))`)
      const [account] = await tx.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, email))
      await tx.delete(emailSignIns).where(sameSlot(emailSignIns, email, deviceHash))
      await tx.insert(emailSignIns).values({
        flowHash,
        tokenHash,
        codeHash,
        email,
        userId: account?.id ?? null,
        expiresAt,
        usedAt: account || signUp ? null : now,
        deviceHash,
      })
      return account ? { userId: account.id, email: account.email } : null
    })
  },

  async findEmailSignInFlow(flowHash, now, maxAttempts) {
    const [row] = await db
      .select(flowColumns(emailSignIns))
      .from(emailSignIns)
      .where(liveFlow(emailSignIns, flowHash, now, maxAttempts))
    return row ?? null
  },

  async claimEmailSignIn(proof, now, maxAttempts) {
    const { set, where } = claimStep(emailSignIns, proof, now, maxAttempts, sql`${now.toISOString()}::timestamptz`)
    const [row] = await db.update(emailSignIns).set(set).where(where).returning(claimedColumns(emailSignIns))
    return claimOutcome(row)
  },

  async settleEmailSignIn({ email, userId, newUser, revoke }) {
    return db.transaction(async (tx) => {
      const inserted = newUser
        ? await tx
            .insert(users)
            .values({ ...newUser, email, passwordHash: NO_PASSWORD, emailVerified: true })
            .onConflictDoNothing({ target: users.email })
            .returning({ id: users.id })
        : []
      const theAccount = userId ? and(eq(users.id, userId), eq(users.email, email)) : eq(users.email, email)
      const [before] = await tx.select(accountColumns).from(users).where(theAccount).for('no key update')
      if (!before) return null
      const settled = !before.emailVerified
      let revokedSessionIds: string[] = []
      if (settled) {
        await tx.update(users).set({ emailVerified: true }).where(eq(users.id, before.id))
        revokedSessionIds = await revokePostgres(tx, { userId: before.id, revoke })
      }
      const [after] = await tx.select(accountColumns).from(users).where(eq(users.id, before.id))
      if (!after) return null
      return {
        userId: after.id,
        credentialsVersion: after.credentialsVersion,
        created: inserted.length === 1,
        settled,
        revokedSessionIds,
      }
    })
  },

  async pruneEmailSignIns(now, limit) {
    const dead = db
      .select({ flowHash: emailSignIns.flowHash })
      .from(emailSignIns)
      .where(deadSignIn(emailSignIns, now))
      .limit(limit)
      .for('update', { skipLocked: true })
    const deleted = await db.delete(emailSignIns).where(inArray(emailSignIns.flowHash, dead)).returning({ one: sql`1` })
    return deleted.length
  },
})
