/**
 * The query conditions every bundled store shares, one home for each: the SQLite (synchronous and
 * D1) and PostgreSQL schemas have the same tables and columns, and Drizzle's conditions take the
 * columns of either dialect. A store facet names a condition instead of spelling it again.
 */
import { and, type Column, eq, gt, isNotNull, isNull, lt, lte, or, type Placeholder, type SQL, sql } from 'drizzle-orm'

/** A single-use row (a token, a challenge) that can still be spent at `now`: unused, unexpired. */
export const unspent = (t: { usedAt: Column; expiresAt: Column }, now: Date) => and(isNull(t.usedAt), gt(t.expiresAt, now)) as SQL

/** A single-use row that can no longer be spent at `now`: used, or expired. The sweep deletes it. */
export const spentOrExpired = (t: { usedAt: Column; expiresAt: Column }, now: Date) =>
  or(isNotNull(t.usedAt), lte(t.expiresAt, now)) as SQL

/** A login challenge that can still be claimed at `now`: unspent, and fewer than `maxFailures` wrong codes. */
export const claimable = (
  t: { hash: Column; usedAt: Column; expiresAt: Column; failures: Column },
  hash: string,
  now: Date,
  maxFailures: number,
) => and(eq(t.hash, hash), unspent(t, now), lt(t.failures, maxFailures)) as SQL

/** The user's add-credential code while it can still be tried at `now`. */
export const liveCode = (
  t: { userId: Column; expiresAt: Column; failures: Column },
  userId: string,
  now: Date,
  maxFailures: number,
) => and(eq(t.userId, userId), gt(t.expiresAt, now), lt(t.failures, maxFailures)) as SQL

/** A TOTP step newer than the last one used: the replay guard. */
export const newerStep = (t: { lastStep: Column }, step: number) => or(isNull(t.lastStep), lt(t.lastStep, step)) as SQL

/**
 * A sealed value (a second factor's secret, an identity's kept tokens) not sealed under the key
 * `sealingPrefix` names (a prefix compare: no LIKE pattern). A `null` column is not sealed at all,
 * and does not match.
 */
export const notSealedWith = (sealed: Column, sealingPrefix: string) =>
  sql`substr(${sealed}, 1, ${sealingPrefix.length}) <> ${sealingPrefix}`

/** The columns of a second factor as `findTwoFactor` answers it, its unused recovery codes counted. */
export const twoFactorColumns = <F extends { secret: Column; enabledAt: Column; lastStep: Column }>(
  twoFactors: F,
  recoveryCodes: { userId: Column; usedAt: Column },
  /** The account, or the placeholder of a prepared statement that names it. */
  userId: string | Placeholder,
): { secret: F['secret']; enabledAt: F['enabledAt']; lastStep: F['lastStep']; recoveryCodesLeft: SQL<number> } => ({
  secret: twoFactors.secret,
  enabledAt: twoFactors.enabledAt,
  lastStep: twoFactors.lastStep,
  recoveryCodesLeft:
    sql<number>`(select count(*) from ${recoveryCodes} where ${recoveryCodes.userId} = ${userId} and ${recoveryCodes.usedAt} is null)`.mapWith(
      Number,
    ),
})

/** The user's row while its credentials version is still `version`. */
export const versionIs = (
  users: { id: Column; credentialsVersion: Column },
  userId: string | Placeholder,
  version: number | Placeholder,
) => and(eq(users.id, userId), eq(users.credentialsVersion, version)) as SQL

/** An unused, unexpired token of the table with this hash. */
export const liveToken = (t: { hash: Column; usedAt: Column; expiresAt: Column }, tokenHash: string, now: Date) =>
  and(eq(t.hash, tokenHash), unspent(t, now)) as SQL

/** One more wrong try on a row that counts them (a challenge, an add-credential code). */
export const oneMoreFailure = (t: { failures: Column }) => sql`${t.failures} + 1`

/** What claiming a login challenge answers. */
export const claimedChallengeColumns = <T extends { userId: Column; credentialsVersion: Column; firstFactor: Column }>(
  t: T,
): { userId: T['userId']; credentialsVersion: T['credentialsVersion']; firstFactor: T['firstFactor'] } => ({
  userId: t.userId,
  credentialsVersion: t.credentialsVersion,
  firstFactor: t.firstFactor,
})
