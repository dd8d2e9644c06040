/**
 * The sign-in-by-email facet on Cloudflare D1. D1 has no interactive transaction, but a batch runs
 * as one, and one at a time: starting a sign-in is one batch (delete the earlier mails it replaces,
 * store this one, read the account), a claim one conditional `UPDATE … RETURNING`, and settling
 * one batch whose every statement carries the guard "the account is still unverified", with the
 * statement that verifies it last (the d1 store's rule: no read-then-write in code).
 */
import { and, eq, exists, inArray, isNotNull, or, type SQL, sql } from 'drizzle-orm'
import type { DrizzleD1Database } from 'drizzle-orm/d1'
import { lastRows, revokeD1 } from '../d1/revoke.js'
import type * as schema from '../sqlite/schema.js'
import { emailSignIns, users } from '../sqlite/schema.js'
import { NO_PASSWORD } from '../store/rows.js'
import { claimedColumns, claimOutcome, claimStep, flowColumns, liveFlow, sameSlot } from './claim.js'
import type { EmailSignInStore } from './store.js'

/** What settling reads of the account. */
const accountColumns = { id: users.id, emailVerified: users.emailVerified, credentialsVersion: users.credentialsVersion }

type Db = DrizzleD1Database<typeof schema>

export const emailSignInD1 = (db: Db): EmailSignInStore => ({
  async startEmailSignIn({ flowHash, tokenHash, codeHash, email, deviceHash, expiresAt, now, signUp }) {
    const account = sql`(select ${users.id} from ${users} where ${users.email} = ${email})`
    const [, , found] = await db.batch([
      db.delete(emailSignIns).where(sameSlot(emailSignIns, email, deviceHash)),
      // The columns in the table's order: flow, token, code, email, account, attempts, expiry, used, device.
      db.insert(emailSignIns).select(
        sql`select ${flowHash}, ${tokenHash}, ${codeHash}, ${email}, ${account}, 0, ${expiresAt.getTime()},
                case when ${account} is null and ${signUp ? 0 : 1} then ${now.getTime()} end, ${deviceHash}`,
      ),
      db.select({ userId: users.id, email: users.email }).from(users).where(eq(users.email, email)),
    ])
    return found[0] ?? null
  },

  async findEmailSignInFlow(flowHash, now, maxAttempts) {
    const [row] = await db
      .select(flowColumns(emailSignIns))
      .from(emailSignIns)
      .where(liveFlow(emailSignIns, flowHash, now, maxAttempts))
    return row ?? null
  },

  async claimEmailSignIn(proof, now, maxAttempts) {
    const { set, where } = claimStep(emailSignIns, proof, now, maxAttempts, sql`${now.getTime()}`)
    const [row] = await db.update(emailSignIns).set(set).where(where).returning(claimedColumns(emailSignIns))
    return claimOutcome(row)
  },

  async settleEmailSignIn({ email, userId, newUser, revoke }) {
    // Creating the account is atomic by itself; a created account is verified, so nothing follows.
    const inserted = newUser
      ? await db
          .insert(users)
          .values({ ...newUser, email, passwordHash: NO_PASSWORD, emailVerified: true })
          .onConflictDoNothing({ target: users.email })
          .returning({ id: users.id })
      : []
    const theAccount: SQL | undefined = userId ? and(eq(users.id, userId), eq(users.email, email)) : eq(users.email, email)
    const owner = sql`(select ${users.id} from ${users} where ${theAccount})`
    const unverified = exists(
      db
        .select({ one: sql`1` })
        .from(users)
        .where(and(theAccount, eq(users.emailVerified, false))),
    )
    const revocation = revokeD1(db, { userId: owner, revoke }, unverified)
    // The update that verifies the account ends the guard: it comes after the revocation's statements.
    const [revoked, ...results] = await db.batch([
      revocation.sessions,
      ...revocation.deletes,
      db
        .update(users)
        .set({ emailVerified: true, ...revocation.user })
        .where(and(theAccount, eq(users.emailVerified, false)))
        .returning({ id: users.id }),
      db.select(accountColumns).from(users).where(theAccount),
    ])
    const [after] = lastRows<{ id: string; credentialsVersion: number }>(results)
    const settled = lastRows(results.slice(0, -1))
    if (!after) return null
    return {
      userId: after.id,
      credentialsVersion: after.credentialsVersion,
      created: inserted.length === 1,
      settled: settled.length === 1,
      revokedSessionIds: revoked.map((row) => row.id),
    }
  },

  async pruneEmailSignIns(now, limit) {
    const dead = db
      .select({ flowHash: emailSignIns.flowHash })
      .from(emailSignIns)
      .where(or(isNotNull(emailSignIns.usedAt), sql`${emailSignIns.expiresAt} <= ${now.getTime()}`))
      .limit(limit)
    const deleted = await db
      .delete(emailSignIns)
      .where(inArray(emailSignIns.flowHash, dead))
      .returning({ flowHash: emailSignIns.flowHash })
    return deleted.length
  },
})
