/**
 * The PostgreSQL store on Drizzle + node-postgres. It runs under READ COMMITTED with many
 * connections and many server instances, so single use and rotation are decided by conditional
 * `UPDATE … WHERE <still unspent> RETURNING`: of concurrent callers exactly one gets the row.
 * Row locks are always taken in one order (users → reset and email tokens, second factor,
 * recovery codes, challenges → sessions),
 * the order in which `ON DELETE CASCADE` takes them, so concurrent operations cannot deadlock.
 * It does not create tables: {@link migratePostgres} does.
 */
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, notInArray, or, sql } from 'drizzle-orm'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import type { Pool } from 'pg'
import { emailSignInPostgres } from '../email-sign-in/postgres.js'
import { postgresPasskeyStore } from '../passkeys/postgres-store.js'
import { toRefreshState, toSessionInfo, toUser, withHash } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns } from '../store/session-lookup.js'
import type { EmailChangeOutcome, Store, UserRecord } from '../store/types.js'
import { revokePostgres } from './revoke.js'
import * as schema from './schema.js'
import {
  addCredentialCodes,
  challenges,
  devices,
  emailTokens,
  recoveryCodes,
  resetTokens,
  sessions,
  twoFactors,
  users,
} from './schema.js'

type Db = NodePgDatabase<typeof schema>
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/** An email token that can still be spent at `now`. */
const unspent = (now: Date) => and(isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now))

/** A challenge that can still be claimed at `now`. */
const claimable = (hash: string, now: Date, maxFailures: number) =>
  and(eq(challenges.hash, hash), isNull(challenges.usedAt), gt(challenges.expiresAt, now), lt(challenges.failures, maxFailures))
/** The user's add-credential code while it can still be spent at `now`. */
const addCredentialCodeLive = (userId: string, now: Date, maxFailures: number) =>
  and(eq(addCredentialCodes.userId, userId), gt(addCredentialCodes.expiresAt, now), lt(addCredentialCodes.failures, maxFailures))

/** A second factor whose secret is not sealed under the key that `sealingPrefix` names (a prefix compare, no LIKE pattern). */
const notSealedWith = (sealingPrefix: string) => sql`substr(${twoFactors.secret}, 1, ${sealingPrefix.length}) <> ${sealingPrefix}`
/** A step newer than the last one used (the replay guard). */
const newerStep = (step: number) => or(isNull(twoFactors.lastStep), lt(twoFactors.lastStep, step))

/** Locks the user's row: the first lock of every multi-row step (the store's lock order). */
const lockUser = (tx: Tx, userId: string) =>
  tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update')

/** The SQLSTATE of a database error, through Drizzle's wrapping. */
const sqlState = (err: unknown): unknown => {
  for (let e = err; e instanceof Error; e = e.cause) if ('code' in e && typeof e.code === 'string') return e.code
  return undefined
}

/** Locks the owner of an email token (users before tokens, the store's lock order); `null` when none. */
const lockTokenOwner = async (tx: Tx, tokenHash: string) => {
  const [owner] = await tx
    .select({ id: users.id, email: users.email })
    .from(emailTokens)
    .innerJoin(users, eq(users.id, emailTokens.userId))
    .where(eq(emailTokens.hash, tokenHash))
    .for('no key update', { of: users })
  return owner ?? null
}
/**
 * A {@link Store} on a node-postgres `Pool`. Call {@link migratePostgres} once before use.
 * The tables are found through the connection's `search_path` (normally `public`).
 *
 * @example
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migratePostgres(pool)
 * const auth = createAuth({ secret, store: postgresStore(pool), sendMail })
 */
export const postgresStore = (pool: Pool): Store<UserRecord> => {
  const db: Db = drizzle({ client: pool, schema })
  // The statements of every guarded request and every login are built once and run as named
  // prepared statements (each connection parses and plans them once). Building the query with
  // Drizzle on every call cost more CPU than the round trip itself (docs/PERFORMANCE.md,
  // "Measurements behind the code").
  // Behind PgBouncer in transaction mode this needs max_prepared_statements (PgBouncer ≥ 1.21).
  const p = sql.placeholder
  const sessionById = db
    .select(sessionLookupColumns(sessions, users))
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, p('id')))
    .prepare('latchkey_session_by_id')
  const userByEmail = db
    .select()
    .from(users)
    .where(eq(users.email, p('email')))
    .prepare('latchkey_user_by_email')

  return {
    ...emailSignInPostgres(db),

    ...postgresPasskeyStore(db),
    async createUser(input) {
      const [row] = await db.insert(users).values(input).onConflictDoNothing({ target: users.email }).returning()
      return row ? toUser(row) : null
    },

    async findUserByEmail(email) {
      const [row] = await userByEmail.execute({ email })
      return withHash(row)
    },

    async findUserById(id) {
      const [row] = await db.select().from(users).where(eq(users.id, id))
      return withHash(row)
    },

    async updatePasswordHash(userId, passwordHash, credentialsVersion) {
      const rows = await db
        .update(users)
        .set({ passwordHash })
        .where(and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion)))
        .returning({ id: users.id })
      return rows.length === 1
    },

    async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId, revoke }) {
      return db.transaction(async (tx) => {
        // The conditional UPDATE takes the user's row lock first (users → reset tokens → sessions).
        const replaced = await tx
          .update(users)
          .set({ passwordHash })
          .where(and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion)))
          .returning({ id: users.id })
        if (replaced.length === 0) return false
        await revokePostgres(tx, { userId, revoke, keepSessionId })
        return true
      })
    },

    async setRole(email, role) {
      const rows = await db.update(users).set({ role }).where(eq(users.email, email)).returning({ id: users.id })
      return rows.length === 1
    },

    async createSession({
      id,
      userId,
      refreshHash,
      refreshKeyHash = null,
      now,
      credentialsVersion,
      amr = ['pwd'],
      userAgent = null,
      ip = null,
    }) {
      return db.transaction(async (tx) => {
        // FOR SHARE conflicts with the row lock of a password change or reset: either it waits
        // for them and reads their new version, or they wait for this session and then delete it.
        const [user] = await tx.select({ version: users.credentialsVersion }).from(users).where(eq(users.id, userId)).for('share')
        if (user?.version !== credentialsVersion) return false
        await tx.insert(sessions).values({
          id,
          userId,
          createdAt: now,
          refreshedAt: now,
          authenticatedAt: now,
          amr,
          refreshHash,
          refreshKeyHash,
          userAgent,
          ip,
        })
        return true
      })
    },

    async findSession(sessionId) {
      const [row] = await sessionById.execute({ id: sessionId })
      return row ? fromSessionLookup(sessionId, row) : null
    },

    async reauthenticate({ sessionId, userId, credentialsVersion, at, amr }) {
      return db.transaction(async (tx) => {
        // As createSession: the version is read under a lock a password change or reset needs too.
        const [user] = await tx.select({ version: users.credentialsVersion }).from(users).where(eq(users.id, userId)).for('share')
        if (user?.version !== credentialsVersion) return false
        const rows = await tx
          .update(sessions)
          .set({ authenticatedAt: at, amr })
          .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
          .returning({ id: sessions.id })
        return rows.length === 1
      })
    },

    async findRefresh(ref) {
      const [row] = await db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where('sessionId' in ref ? eq(sessions.id, ref.sessionId) : eq(sessions.refreshHash, ref.currentHash))
      return row ? { session: toRefreshState(row.session), user: toUser(row.user) } : null
    },

    async swapRefresh({ sessionId, from, to, keyHash, now }) {
      // One conditional UPDATE: concurrent callers queue on the row lock, and each one after the
      // first re-reads the row (READ COMMITTED), finds `from` no longer current and changes nothing.
      const rows = await db
        .update(sessions)
        .set({ refreshHash: to, previousRefreshHash: from, refreshKeyHash: keyHash, rotatedAt: now, refreshedAt: now })
        .where(and(eq(sessions.id, sessionId), eq(sessions.refreshHash, from)))
        .returning({ id: sessions.id })
      return rows.length === 1
    },

    async deleteSession(sessionId) {
      await db.delete(sessions).where(eq(sessions.id, sessionId))
    },

    async createResetToken({ userId, tokenHash, expiresAt }) {
      await db.transaction(async (tx) => {
        // Serialises concurrent requests of one user, so only the newest token survives.
        await lockUser(tx, userId)
        await tx.delete(resetTokens).where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt)))
        await tx.insert(resetTokens).values({ hash: tokenHash, userId, expiresAt })
      })
    },

    async findResetToken(tokenHash, now) {
      const [row] = await db
        .select({ userId: users.id, email: users.email })
        .from(resetTokens)
        .innerJoin(users, eq(users.id, resetTokens.userId))
        .where(and(eq(resetTokens.hash, tokenHash), isNull(resetTokens.usedAt), gt(resetTokens.expiresAt, now)))
      return row ?? null
    },

    async consumeResetToken({ tokenHash, now, passwordHash, revoke }) {
      return db.transaction(async (tx) => {
        // The owner's row first, as createResetToken takes it, before the token row.
        const [owner] = await tx
          .select({ id: users.id })
          .from(resetTokens)
          .innerJoin(users, eq(users.id, resetTokens.userId))
          .where(eq(resetTokens.hash, tokenHash))
          .for('no key update', { of: users })
        if (!owner) return null
        // The decision: only one caller finds the token still unused.
        const [spent] = await tx
          .update(resetTokens)
          .set({ usedAt: now })
          .where(and(eq(resetTokens.hash, tokenHash), isNull(resetTokens.usedAt), gt(resetTokens.expiresAt, now)))
          .returning({ userId: resetTokens.userId })
        if (!spent) return null
        await tx
          .update(users)
          // The token came by mail to the account's address: that proves the mailbox too.
          .set({ passwordHash, emailVerified: true })
          .where(eq(users.id, spent.userId))
        await revokePostgres(tx, { userId: spent.userId, revoke })
        return spent.userId
      })
    },

    async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
      // Bounded batches; SKIP LOCKED leaves rows a request is working on to the next sweep, so a
      // sweep never waits on, nor makes wait, a login, a refresh or a reset.
      const deadSessions = db
        .select({ id: sessions.id })
        .from(sessions)
        .where(or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy)))
        .limit(limit)
        .for('update', { skipLocked: true })
      const spentTokens = db
        .select({ hash: resetTokens.hash })
        .from(resetTokens)
        .where(or(isNotNull(resetTokens.usedAt), lte(resetTokens.expiresAt, now)))
        .limit(limit)
        .for('update', { skipLocked: true })
      const spentEmailTokens = db
        .select({ hash: emailTokens.hash })
        .from(emailTokens)
        .where(or(isNotNull(emailTokens.usedAt), lte(emailTokens.expiresAt, now)))
        .limit(limit)
        .for('update', { skipLocked: true })
      const deadChallenges = db
        .select({ hash: challenges.hash })
        .from(challenges)
        .where(or(isNotNull(challenges.usedAt), lte(challenges.expiresAt, now)))
        .limit(limit)
        .for('update', { skipLocked: true })
      const expiredCodes = db
        .select({ userId: addCredentialCodes.userId })
        .from(addCredentialCodes)
        .where(lte(addCredentialCodes.expiresAt, now))
        .limit(limit)
        .for('update', { skipLocked: true })
      const forgotten = db
        .select({ ctid: sql`ctid` })
        .from(devices)
        .where(lte(devices.lastSeenAt, forgetDevicesSeenBy))
        .limit(limit)
        .for('update', { skipLocked: true })
      const [dead, spent, spentEmail, spentChallenges, expired, forgottenDevices] = await Promise.all([
        db.delete(sessions).where(inArray(sessions.id, deadSessions)),
        db.delete(resetTokens).where(inArray(resetTokens.hash, spentTokens)),
        db.delete(emailTokens).where(inArray(emailTokens.hash, spentEmailTokens)),
        db.delete(challenges).where(inArray(challenges.hash, deadChallenges)),
        db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
        db.delete(devices).where(inArray(sql`ctid`, forgotten)),
      ])
      return {
        sessions: dead.rowCount ?? 0,
        resetTokens: spent.rowCount ?? 0,
        emailTokens: spentEmail.rowCount ?? 0,
        challenges: spentChallenges.rowCount ?? 0,
        addCredentialCodes: expired.rowCount ?? 0,
        devices: forgottenDevices.rowCount ?? 0,
      }
    },

    async createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail }) {
      await db.transaction(async (tx) => {
        // Serialises concurrent requests of one user, so only the newest token of the kind survives.
        await lockUser(tx, userId)
        await tx
          .delete(emailTokens)
          .where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt)))
        await tx.insert(emailTokens).values({ hash: tokenHash, userId, kind, newEmail: newEmail ?? null, expiresAt })
      })
    },

    async findEmailToken(tokenHash, kind, now) {
      const [row] = await db
        .select({ userId: users.id, email: users.email })
        .from(emailTokens)
        .innerJoin(users, eq(users.id, emailTokens.userId))
        .where(and(eq(emailTokens.hash, tokenHash), eq(emailTokens.kind, kind), unspent(now)))
      return row ?? null
    },

    async verifyEmail({ tokenHash, now, revoke }) {
      return db.transaction(async (tx) => {
        const owner = await lockTokenOwner(tx, tokenHash)
        if (!owner) return null
        const [spent] = await tx
          .update(emailTokens)
          .set({ usedAt: now })
          .where(and(eq(emailTokens.hash, tokenHash), eq(emailTokens.kind, 'verify-email'), unspent(now)))
          .returning({ userId: emailTokens.userId })
        if (!spent) return null
        await tx.update(users).set({ emailVerified: true }).where(eq(users.id, spent.userId))
        await revokePostgres(tx, { userId: spent.userId, revoke })
        return spent.userId
      })
    },

    async confirmEmailChange({ tokenHash, now, revoke }) {
      return db.transaction(async (tx): Promise<EmailChangeOutcome> => {
        const owner = await lockTokenOwner(tx, tokenHash)
        if (!owner) return { status: 'invalid' }
        const [spent] = await tx
          .update(emailTokens)
          .set({ usedAt: now })
          .where(and(eq(emailTokens.hash, tokenHash), eq(emailTokens.kind, 'change-email'), unspent(now)))
          .returning({ userId: emailTokens.userId, newEmail: emailTokens.newEmail })
        if (!spent?.newEmail) return { status: 'invalid' }
        const { newEmail } = spent
        // In a savepoint: a signup that takes the address at this moment fails the unique index
        // here, and the spent token must still commit.
        const changed = await tx
          .transaction(async (sp) => {
            await sp.update(users).set({ email: newEmail, emailVerified: true }).where(eq(users.id, spent.userId))
            return true
          })
          .catch((err: unknown) => {
            if (sqlState(err) === '23505') return false
            throw err
          })
        if (!changed) return { status: 'taken', userId: spent.userId }
        await revokePostgres(tx, { userId: spent.userId, revoke })
        return { status: 'changed', userId: spent.userId, oldEmail: owner.email, newEmail }
      })
    },

    async listSessions(userId) {
      return (await db.select().from(sessions).where(eq(sessions.userId, userId))).map(toSessionInfo)
    },

    async deleteUserSession(userId, sessionId) {
      const rows = await db
        .delete(sessions)
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
        .returning({ id: sessions.id })
      return rows.length === 1
    },

    async deleteOtherSessions(userId, keepSessionId) {
      const rows = await db
        .delete(sessions)
        .where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)))
        .returning({ id: sessions.id })
      return rows.map((row) => row.id)
    },

    async trimSessions(userId, keep) {
      const beyond = db
        .select({ id: sessions.id })
        .from(sessions)
        .where(eq(sessions.userId, userId))
        .orderBy(desc(sessions.refreshedAt), desc(sessions.id))
        .offset(keep)
      // The user's own rows only: without it the planner scans every session against the subquery.
      const rows = await db
        .delete(sessions)
        .where(and(eq(sessions.userId, userId), inArray(sessions.id, beyond)))
        .returning({ id: sessions.id })
      return rows.map((row) => row.id)
    },

    async deleteUser(userId, credentialsVersion) {
      // Sessions and tokens go with the user (ON DELETE CASCADE), in the same statement.
      const rows = await db
        .delete(users)
        .where(and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion)))
        .returning({ id: users.id })
      return rows.length === 1
    },
    async findTwoFactor(userId) {
      const [row] = await db
        .select({
          secret: twoFactors.secret,
          enabledAt: twoFactors.enabledAt,
          lastStep: twoFactors.lastStep,
          recoveryCodesLeft:
            sql<number>`(select count(*) from ${recoveryCodes} where ${recoveryCodes.userId} = ${userId} and ${recoveryCodes.usedAt} is null)`.mapWith(
              Number,
            ),
        })
        .from(twoFactors)
        .where(eq(twoFactors.userId, userId))
      return row ?? null
    },

    async setPendingTwoFactor(userId, secret, now) {
      const rows = await db
        .insert(twoFactors)
        .values({ userId, secret, createdAt: now })
        .onConflictDoUpdate({
          target: twoFactors.userId,
          set: { secret, createdAt: now, lastStep: null },
          setWhere: isNull(twoFactors.enabledAt),
        })
        .returning({ userId: twoFactors.userId })
      return rows.length === 1
    },

    async enableTwoFactor({ userId, secret, step, recoveryCodeHashes, keepSessionId, now, revoke }) {
      return db.transaction(async (tx) => {
        await lockUser(tx, userId)
        const enabled = await tx
          .update(twoFactors)
          .set({ enabledAt: now, lastStep: step })
          .where(and(eq(twoFactors.userId, userId), eq(twoFactors.secret, secret), isNull(twoFactors.enabledAt), newerStep(step)))
          .returning({ userId: twoFactors.userId })
        if (enabled.length !== 1) return null
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId))
        await tx.insert(recoveryCodes).values(recoveryCodeHashes.map((hash) => ({ hash, userId })))
        return revokePostgres(tx, { userId, revoke, keepSessionId })
      })
    },

    async useTotpStep(userId, step) {
      // One conditional UPDATE: concurrent callers queue on the row lock and re-read the step.
      const rows = await db
        .update(twoFactors)
        .set({ lastStep: step })
        .where(and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(step)))
        .returning({ userId: twoFactors.userId })
      return rows.length === 1
    },

    async useRecoveryCode(userId, codeHash, now) {
      const rows = await db
        .update(recoveryCodes)
        .set({ usedAt: now })
        .where(and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
        .returning({ hash: recoveryCodes.hash })
      return rows.length === 1
    },

    async replaceRecoveryCodes(userId, codeHashes) {
      return db.transaction(async (tx) => {
        await lockUser(tx, userId)
        const [enabled] = await tx
          .select({ userId: twoFactors.userId })
          .from(twoFactors)
          .where(and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt)))
        if (!enabled) return false
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId))
        await tx.insert(recoveryCodes).values(codeHashes.map((hash) => ({ hash, userId })))
        return true
      })
    },

    async resealTwoFactor(userId, from, to) {
      const rows = await db
        .update(twoFactors)
        .set({ secret: to })
        .where(and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from)))
        .returning({ userId: twoFactors.userId })
      return rows.length === 1
    },

    async staleSeals({ sealingPrefix, afterUserId, limit }) {
      return db
        .select({ userId: twoFactors.userId, secret: twoFactors.secret })
        .from(twoFactors)
        .where(and(notSealedWith(sealingPrefix), afterUserId === null ? undefined : gt(twoFactors.userId, afterUserId)))
        .orderBy(twoFactors.userId)
        .limit(limit)
    },

    async countStaleSeals(sealingPrefix) {
      return db.$count(twoFactors, notSealedWith(sealingPrefix))
    },

    async deleteTwoFactor({ userId, keepSessionId, revoke }) {
      return db.transaction(async (tx) => {
        await lockUser(tx, userId)
        const deleted = await tx.delete(twoFactors).where(eq(twoFactors.userId, userId)).returning({ userId: twoFactors.userId })
        await revokePostgres(tx, { userId, revoke, keepSessionId })
        return deleted.length === 1
      })
    },

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
      const live = addCredentialCodeLive(userId, now, maxFailures)
      const spent = await db
        .delete(addCredentialCodes)
        .where(and(live, eq(addCredentialCodes.hash, codeHash)))
        .returning({ userId: addCredentialCodes.userId })
      if (spent.length === 1) return true
      await db
        .update(addCredentialCodes)
        .set({ failures: sql`${addCredentialCodes.failures} + 1` })
        .where(live)
      return false
    },

    async createChallenge({ hash, userId, credentialsVersion, expiresAt }) {
      await db.insert(challenges).values({ hash, userId, credentialsVersion, expiresAt })
    },

    async findChallenge(hash) {
      const [row] = await db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash))
      return row ?? null
    },

    async claimChallenge(hash, now, maxFailures) {
      const [claimed] = await db
        .update(challenges)
        .set({ usedAt: now })
        .where(claimable(hash, now, maxFailures))
        .returning({ userId: challenges.userId, credentialsVersion: challenges.credentialsVersion })
      return claimed ?? null
    },

    async failChallenge(hash) {
      await db
        .update(challenges)
        .set({ usedAt: null, failures: sql`${challenges.failures} + 1` })
        .where(eq(challenges.hash, hash))
    },

    async rememberDevice({ userId, deviceHash, now, keep }) {
      // A row this statement inserted has xmax 0; one it updated (the device was known) does not.
      const [row] = await db
        .insert(devices)
        .values({ userId, deviceHash, lastSeenAt: now })
        .onConflictDoUpdate({ target: [devices.userId, devices.deviceHash], set: { lastSeenAt: now } })
        .returning({ added: sql<boolean>`(xmax = 0)` })
      if (row?.added !== true) return false
      const kept = db
        .select({ ctid: sql`ctid` })
        .from(devices)
        .where(eq(devices.userId, userId))
        .orderBy(desc(devices.lastSeenAt))
        .limit(keep)
      await db.delete(devices).where(and(eq(devices.userId, userId), notInArray(sql`ctid`, kept)))
      return true
    },

    async knowsDevice(userId, deviceHash) {
      const [row] = await db
        .select({ userId: devices.userId })
        .from(devices)
        .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
      return row !== undefined
    },
  }
}
