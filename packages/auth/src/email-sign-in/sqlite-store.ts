/**
 * The sign-in-by-email facet on SQLite, for every driver (`sqlite/db.ts`): starting a sign-in is
 * one step (delete the earlier mails it replaces, store this one, read the account), a claim one
 * conditional `UPDATE … RETURNING`, and settling one step whose every statement carries the guard
 * "the account is still unverified", with the statement that verifies it after them.
 */
import { and, eq, exists, inArray, type SQL, sql } from 'drizzle-orm'
import { changes, type SqliteDb, type SqliteSteps } from '../sqlite/db.js'
import { revokeSteps } from '../sqlite/revoke.js'
import { users } from '../sqlite/tables.js'
import { NO_PASSWORD } from '../store/rows.js'
import { claimedColumns, claimOutcome, claimStep, deadSignIn, flowColumns, liveFlow, sameSlot } from './claim.js'
import { emailSignIns } from './sqlite-tables.js'
import type { EmailSignInStore } from './store.js'

/** What settling reads of the account. */
const accountColumns = { id: users.id, emailVerified: users.emailVerified, credentialsVersion: users.credentialsVersion }

export const emailSignInSqlite = (db: SqliteDb, steps: SqliteSteps): EmailSignInStore => ({
  async startEmailSignIn({ flowHash, tokenHash, codeHash, email, deviceHash, expiresAt, now, signUp }) {
    const account = sql`(select ${users.id} from ${users} where ${users.email} = ${email})`
    const [, , found] = await steps.atomic([
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
    const row = await db
      .select(flowColumns(emailSignIns))
      .from(emailSignIns)
      .where(liveFlow(emailSignIns, flowHash, now, maxAttempts))
      .get()
    return row ?? null
  },

  async claimEmailSignIn(proof, now, maxAttempts) {
    const { set, where } = claimStep(emailSignIns, proof, now, maxAttempts, sql`${now.getTime()}`)
    const claim = db.update(emailSignIns).set(set).where(where).returning(claimedColumns(emailSignIns))
    return claimOutcome(await steps.durable(() => claim.get()))
  },

  async settleEmailSignIn({ email, userId, newUser, revoke }) {
    const theAccount: SQL | undefined = userId ? and(eq(users.id, userId), eq(users.email, email)) : eq(users.email, email)
    const owner = sql`(select ${users.id} from ${users} where ${theAccount})`
    const unverified = exists(
      db
        .select({ one: sql`1` })
        .from(users)
        .where(and(theAccount, eq(users.emailVerified, false))),
    )
    const revocation = revokeSteps(db, { userId: owner, revoke }, unverified)
    // A created account is verified, so the guarded statements after its insert leave it alone.
    const create = newUser
      ? ([
          db
            .insert(users)
            .values({ ...newUser, email, passwordHash: NO_PASSWORD, emailVerified: true })
            .onConflictDoNothing({ target: users.email }),
        ] as const)
      : ([] as const)
    // The update that verifies the account ends the guard: it comes after the revocation's statements.
    const results = await steps.durable(() =>
      steps.atomic([
        ...create,
        revocation.sessions,
        ...revocation.deletes,
        db
          .update(users)
          .set({ emailVerified: true, ...revocation.user })
          .where(and(theAccount, eq(users.emailVerified, false))),
        db.select(accountColumns).from(users).where(theAccount),
      ]),
    )
    const [after] = results.at(-1) as { id: string; credentialsVersion: number }[]
    if (!after) return null
    return {
      userId: after.id,
      credentialsVersion: after.credentialsVersion,
      created: create.length === 1 && changes(results[0]) === 1,
      settled: changes(results.at(-2)) === 1,
      revokedSessionIds: (results[create.length] as { id: string }[]).map((row) => row.id),
    }
  },

  async pruneEmailSignIns(now, limit) {
    const dead = db
      .select({ flowHash: emailSignIns.flowHash })
      .from(emailSignIns)
      .where(deadSignIn(emailSignIns, now))
      .limit(limit)
    return changes(await db.delete(emailSignIns).where(inArray(emailSignIns.flowHash, dead)).run())
  },
})
