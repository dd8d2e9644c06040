/**
 * Sign-in by email as every bundled store runs it: which earlier mails a new one replaces, and a
 * claim, one conditional UPDATE … RETURNING whose WHERE and SET are the same in every dialect but
 * for how `now` is written inside SQL.
 */
import { and, type Column, eq, gt, isNotNull, isNull, lt, lte, or, type SQL, sql } from 'drizzle-orm'
import type { EmailSignInClaim, EmailSignInProof } from './store.js'

interface SignInColumns {
  flowHash: Column
  tokenHash: Column
  codeHash: Column
  email: Column
  deviceHash: Column
  userId: Column
  attempts: Column
  expiresAt: Column
  usedAt: Column
}

/**
 * The earlier mails a new one for `email` from `deviceHash` replaces: the address's mails for the
 * same browser the account knows, or (`null`) those of every other request; never another's.
 */
export const sameSlot = (t: SignInColumns, email: string, deviceHash: string | null) =>
  and(eq(t.email, email), deviceHash === null ? isNull(t.deviceHash) : eq(t.deviceHash, deviceHash)) as SQL

/** A sign-in that can still be spent at `now`: unused, unexpired, fewer than `maxAttempts` codes tried. */
export const liveSignIn = (t: SignInColumns, now: Date, maxAttempts: number) =>
  and(isNull(t.usedAt), gt(t.expiresAt, now), lt(t.attempts, maxAttempts)) as SQL

/** A sign-in that can never be spent again at `now` (used or expired): the sweep deletes it. */
export const deadSignIn = (t: SignInColumns, now: Date) => or(isNotNull(t.usedAt), lte(t.expiresAt, now)) as SQL

/** The live sign-in of a flow. */
export const liveFlow = (t: SignInColumns, flowHash: string, now: Date, maxAttempts: number) =>
  and(eq(t.flowHash, flowHash), liveSignIn(t, now, maxAttempts)) as SQL

/** What a flow's owner is read as: its address and account. */
export const flowColumns = <T extends SignInColumns>(t: T): { email: T['email']; userId: T['userId'] } => ({
  email: t.email,
  userId: t.userId,
})

/**
 * The claim's WHERE and SET. By token: spends a live sign-in. By code: counts one try on a live
 * flow and spends it when the code's hash matches (`nowSql`: `now` as the dialect writes it).
 */
export const claimStep = (t: SignInColumns, proof: EmailSignInProof, now: Date, maxAttempts: number, nowSql: SQL) => {
  const live = liveSignIn(t, now, maxAttempts)
  return 'tokenHash' in proof
    ? { set: { usedAt: now }, where: and(eq(t.tokenHash, proof.tokenHash), live) as SQL }
    : {
        set: { attempts: sql`${t.attempts} + 1`, usedAt: sql`case when ${t.codeHash} = ${proof.codeHash} then ${nowSql} end` },
        where: liveFlow(t, proof.flowHash, now, maxAttempts),
      }
}

/** What the claim's UPDATE returns. */
export const claimedColumns = <T extends SignInColumns>(
  t: T,
): { email: T['email']; userId: T['userId']; usedAt: T['usedAt'] } => ({ ...flowColumns(t), usedAt: t.usedAt })

/** The claim's answer from the row it returned. */
export const claimOutcome = (
  row: { email: string; userId: string | null; usedAt: Date | null } | undefined,
): EmailSignInClaim => {
  if (!row) return { status: 'invalid' }
  return row.usedAt ? { status: 'claimed', email: row.email, userId: row.userId } : { status: 'wrong', userId: row.userId }
}
