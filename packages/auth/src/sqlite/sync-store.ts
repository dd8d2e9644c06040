/**
 * The SQLite store on Drizzle over a synchronous driver: better-sqlite3 (Node), `bun:sqlite`
 * (Bun) or `node:sqlite` (Deno, Node ≥ 22.5); each subpath wraps this core with its driver. The
 * driver is synchronous, so every multi-statement operation is one IMMEDIATE transaction: it
 * takes the write lock up front, which makes rotation and single-use consumption atomic across
 * processes sharing the file. This module imports no driver.
 */
import { and, desc, eq, exists, gt, inArray, isNotNull, isNull, lt, lte, ne, notInArray, or, sql } from 'drizzle-orm'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import { emailSignInSqlite } from '../email-sign-in/sqlite.js'
import { sqlitePasskeyStore } from '../passkeys/sqlite-store.js'
import { toRefreshState, toSessionInfo, toUser, withHash } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns, sessionLookupDecoder } from '../store/session-lookup.js'
import type { EmailChangeOutcome, Store, UserRecord } from '../store/types.js'
import type * as schema from './schema.js'
import {
  addCredentialCodes,
  challenges,
  devices,
  emailTokens,
  notSealedWith,
  recoveryCodes,
  resetTokens,
  sessions,
  trimmedSessions,
  twoFactors,
  users,
} from './schema.js'

/** A synchronous Drizzle SQLite database whose `run()` reports the rows it changed. */
export type SyncSqliteDb = BaseSQLiteDatabase<'sync', { changes: number }, typeof schema>
type Db = SyncSqliteDb

/** The two PRAGMA calls the store makes, in its driver's words. */
export interface SqlitePragmas {
  /** Runs `PRAGMA <statement>`, e.g. `synchronous = FULL`. */
  set(statement: string): void
  /** The value of `PRAGMA <name>`, e.g. `synchronous` → 1. */
  get(name: string): number
}

/** An email token that can still be spent at `now`. */
const unspent = (now: Date) => and(isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now))
/** The user's unused email-change tokens: a new password (change or reset) kills them. */
const pendingEmailChange = (userId: string) =>
  and(eq(emailTokens.userId, userId), eq(emailTokens.kind, 'change-email'), isNull(emailTokens.usedAt))
/** A challenge that can still be claimed at `now`. */
const claimable = (hash: string, now: Date, maxFailures: number) =>
  and(eq(challenges.hash, hash), isNull(challenges.usedAt), gt(challenges.expiresAt, now), lt(challenges.failures, maxFailures))
/** The user's add-credential code while it can still be spent at `now`. */
const addCredentialCodeLive = (userId: string, now: Date, maxFailures: number) =>
  and(eq(addCredentialCodes.userId, userId), gt(addCredentialCodes.expiresAt, now), lt(addCredentialCodes.failures, maxFailures))
/** A step newer than the last one used (the replay guard). */
const newerStep = (step: number) => or(isNull(twoFactors.lastStep), lt(twoFactors.lastStep, step))
/**
 * The {@link Store} on a synchronous Drizzle SQLite database (`db`, made with `schema`) and its
 * driver's PRAGMA calls. Use the subpath of your driver (`sqliteStore`, `bunSqliteStore`, …).
 */
export const syncSqliteStore = (db: Db, pragmas: SqlitePragmas): Store<UserRecord> => {
  pragmas.set('foreign_keys = ON')
  const immediate = { behavior: 'immediate' } as const
  // The statements of every guarded request and every login are built and prepared once, on
  // first use (the tables may not exist yet when the store is made), instead of once per call.
  const p = sql.placeholder
  const lookupColumns = sessionLookupColumns(sessions, users)
  const lookupRow = sessionLookupDecoder(lookupColumns)
  const prepare = () => ({
    // Every guarded request: only the columns it needs, flat (never the password hash). A
    // nested select of both whole rows costs measurably more per lookup (docs/PERFORMANCE.md).
    sessionById: db
      .select(lookupColumns)
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.id, p('id')))
      .prepare(),
    userByEmail: db
      .select()
      .from(users)
      .where(eq(users.email, p('email')))
      .prepare(),
    versionOf: db
      .select({ version: users.credentialsVersion })
      .from(users)
      .where(eq(users.id, p('id')))
      .prepare(),
    insertSession: db
      .insert(sessions)
      .values({
        id: p('id'),
        userId: p('userId'),
        createdAt: p('now'),
        refreshedAt: p('now'),
        authenticatedAt: p('now'),
        amr: p('amr'),
        refreshHash: p('hash'),
        refreshKeyHash: p('keyHash'),
        userAgent: p('userAgent'),
        ip: p('ip'),
      })
      .prepare(),
  })
  let statements: ReturnType<typeof prepare> | undefined
  const hot = () => {
    statements ??= prepare()
    return statements
  }

  // WAL with synchronous=NORMAL (the usual setting, and openSqlite's) may lose the last commits
  // on power loss: a logout, a spent refresh value or a used reset token would come back. The
  // writes that revoke or spend are committed with synchronous=FULL, which syncs the WAL at the
  // commit; it costs one fsync (docs/PERFORMANCE.md), other writes keep theirs.
  const durable = <T>(write: () => T): T => {
    const previous = pragmas.get('synchronous')
    if (previous >= 2) return write()
    pragmas.set('synchronous = FULL')
    try {
      return write()
    } finally {
      pragmas.set(`synchronous = ${previous}`)
    }
  }

  return {
    ...emailSignInSqlite(db, durable),

    ...sqlitePasskeyStore(db),
    async createUser(input) {
      const rows = db.insert(users).values(input).onConflictDoNothing({ target: users.email }).returning().all()
      const row = rows[0]
      return row ? toUser(row) : null
    },

    async findUserByEmail(email) {
      return withHash(hot().userByEmail.get({ email }))
    },

    async findUserById(id) {
      return withHash(db.select().from(users).where(eq(users.id, id)).get())
    },

    async updatePasswordHash(userId, passwordHash, credentialsVersion) {
      const current = and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion))
      return db.update(users).set({ passwordHash }).where(current).run().changes === 1
    },

    async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId }) {
      return durable(() =>
        db.transaction((tx) => {
          const replaced = tx
            .update(users)
            .set({ passwordHash, credentialsVersion: sql`${users.credentialsVersion} + 1` })
            .where(and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion)))
            .run()
          if (replaced.changes !== 1) return false
          const others = keepSessionId
            ? and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))
            : eq(sessions.userId, userId)
          tx.delete(sessions).where(others).run()
          tx.delete(resetTokens)
            .where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt)))
            .run()
          tx.delete(emailTokens).where(pendingEmailChange(userId)).run()
          return true
        }, immediate),
      )
    },

    async setRole(email, role) {
      return db.update(users).set({ role }).where(eq(users.email, email)).run().changes === 1
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
      const { versionOf, insertSession } = hot()
      // IMMEDIATE: the version read and the insert happen under the write lock a reset needs too.
      return db.transaction(() => {
        if (versionOf.get({ id: userId })?.version !== credentialsVersion) return false
        insertSession.run({ id, userId, now, amr, hash: refreshHash, keyHash: refreshKeyHash, userAgent, ip })
        return true
      }, immediate)
    },

    async findSession(sessionId) {
      const [values] = hot().sessionById.values({ id: sessionId })
      return values ? fromSessionLookup(sessionId, lookupRow(values)) : null
    },

    async reauthenticate({ sessionId, userId, credentialsVersion, at, amr }) {
      const current = db
        .select({ one: sql`1` })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion)))
      const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId), exists(current))
      return durable(() => db.update(sessions).set({ authenticatedAt: at, amr }).where(mine).run().changes === 1)
    },

    async findRefresh(ref) {
      const row = db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where('sessionId' in ref ? eq(sessions.id, ref.sessionId) : eq(sessions.refreshHash, ref.currentHash))
        .get()
      return row ? { session: toRefreshState(row.session), user: toUser(row.user) } : null
    },

    async swapRefresh({ sessionId, from, to, keyHash, now }) {
      const current = and(eq(sessions.id, sessionId), eq(sessions.refreshHash, from))
      const set = { refreshHash: to, previousRefreshHash: from, refreshKeyHash: keyHash, rotatedAt: now, refreshedAt: now }
      return durable(() => db.update(sessions).set(set).where(current).run().changes === 1)
    },

    async deleteSession(sessionId) {
      durable(() => db.delete(sessions).where(eq(sessions.id, sessionId)).run())
    },

    async createResetToken({ userId, tokenHash, expiresAt }) {
      db.transaction((tx) => {
        tx.delete(resetTokens)
          .where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt)))
          .run()
        tx.insert(resetTokens).values({ hash: tokenHash, userId, expiresAt }).run()
      }, immediate)
    },

    async findResetToken(tokenHash, now) {
      const row = db
        .select({ userId: users.id, email: users.email })
        .from(resetTokens)
        .innerJoin(users, eq(users.id, resetTokens.userId))
        .where(and(eq(resetTokens.hash, tokenHash), isNull(resetTokens.usedAt), gt(resetTokens.expiresAt, now)))
        .get()
      return row ?? null
    },

    async consumeResetToken({ tokenHash, now, passwordHash }) {
      return durable(() =>
        db.transaction((tx) => {
          const spent = tx
            .update(resetTokens)
            .set({ usedAt: now })
            .where(and(eq(resetTokens.hash, tokenHash), isNull(resetTokens.usedAt), gt(resetTokens.expiresAt, now)))
            .returning({ userId: resetTokens.userId })
            .get()
          if (!spent) return null
          // The token came by mail to the account's address: that proves the mailbox too.
          tx.update(users)
            .set({ passwordHash, credentialsVersion: sql`${users.credentialsVersion} + 1`, emailVerified: true })
            .where(eq(users.id, spent.userId))
            .run()
          tx.delete(sessions).where(eq(sessions.userId, spent.userId)).run()
          tx.delete(resetTokens)
            .where(and(eq(resetTokens.userId, spent.userId), isNull(resetTokens.usedAt)))
            .run()
          tx.delete(emailTokens).where(pendingEmailChange(spent.userId)).run()
          return spent.userId
        }, immediate),
      )
    },

    async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
      // Each batch is one short statement: the write lock is held for at most `limit` deletes.
      const deadSessions = db
        .select({ id: sessions.id })
        .from(sessions)
        .where(or(lte(sessions.refreshedAt, deadIfRefreshedBy), lte(sessions.createdAt, deadIfCreatedBy)))
        .limit(limit)
      const spentTokens = db
        .select({ hash: resetTokens.hash })
        .from(resetTokens)
        .where(or(isNotNull(resetTokens.usedAt), lte(resetTokens.expiresAt, now)))
        .limit(limit)
      const spentEmailTokens = db
        .select({ hash: emailTokens.hash })
        .from(emailTokens)
        .where(or(isNotNull(emailTokens.usedAt), lte(emailTokens.expiresAt, now)))
        .limit(limit)
      const deadChallenges = db
        .select({ hash: challenges.hash })
        .from(challenges)
        .where(or(isNotNull(challenges.usedAt), lte(challenges.expiresAt, now)))
        .limit(limit)
      const expiredCodes = db
        .select({ userId: addCredentialCodes.userId })
        .from(addCredentialCodes)
        .where(lte(addCredentialCodes.expiresAt, now))
        .limit(limit)
      const forgotten = db
        .select({ rowid: sql`rowid` })
        .from(devices)
        .where(lte(devices.lastSeenAt, forgetDevicesSeenBy))
        .limit(limit)
      return {
        sessions: db.delete(sessions).where(inArray(sessions.id, deadSessions)).run().changes,
        resetTokens: db.delete(resetTokens).where(inArray(resetTokens.hash, spentTokens)).run().changes,
        emailTokens: db.delete(emailTokens).where(inArray(emailTokens.hash, spentEmailTokens)).run().changes,
        challenges: db.delete(challenges).where(inArray(challenges.hash, deadChallenges)).run().changes,
        addCredentialCodes: db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)).run().changes,
        devices: db.delete(devices).where(inArray(sql`rowid`, forgotten)).run().changes,
      }
    },

    async createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail }) {
      db.transaction((tx) => {
        tx.delete(emailTokens)
          .where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt)))
          .run()
        tx.insert(emailTokens)
          .values({ hash: tokenHash, userId, kind, newEmail: newEmail ?? null, expiresAt })
          .run()
      }, immediate)
    },

    async findEmailToken(tokenHash, kind, now) {
      const row = db
        .select({ userId: users.id, email: users.email })
        .from(emailTokens)
        .innerJoin(users, eq(users.id, emailTokens.userId))
        .where(and(eq(emailTokens.hash, tokenHash), eq(emailTokens.kind, kind), unspent(now)))
        .get()
      return row ?? null
    },

    async verifyEmail({ tokenHash, now }) {
      return durable(() =>
        db.transaction((tx) => {
          const spent = tx
            .update(emailTokens)
            .set({ usedAt: now })
            .where(and(eq(emailTokens.hash, tokenHash), eq(emailTokens.kind, 'verify-email'), unspent(now)))
            .returning({ userId: emailTokens.userId })
            .get()
          if (!spent) return null
          tx.update(users).set({ emailVerified: true }).where(eq(users.id, spent.userId)).run()
          return spent.userId
        }, immediate),
      )
    },

    async confirmEmailChange({ tokenHash, now }) {
      return durable(() =>
        db.transaction((tx): EmailChangeOutcome => {
          const spent = tx
            .update(emailTokens)
            .set({ usedAt: now })
            .where(and(eq(emailTokens.hash, tokenHash), eq(emailTokens.kind, 'change-email'), unspent(now)))
            .returning({ userId: emailTokens.userId, newEmail: emailTokens.newEmail })
            .get()
          const owner = spent && tx.select({ email: users.email }).from(users).where(eq(users.id, spent.userId)).get()
          if (!spent?.newEmail || !owner) return { status: 'invalid' }
          const holder = tx.select({ id: users.id }).from(users).where(eq(users.email, spent.newEmail)).get()
          if (holder && holder.id !== spent.userId) return { status: 'taken', userId: spent.userId }
          tx.update(users)
            .set({ email: spent.newEmail, emailVerified: true, credentialsVersion: sql`${users.credentialsVersion} + 1` })
            .where(eq(users.id, spent.userId))
            .run()
          tx.delete(sessions).where(eq(sessions.userId, spent.userId)).run()
          tx.delete(resetTokens)
            .where(and(eq(resetTokens.userId, spent.userId), isNull(resetTokens.usedAt)))
            .run()
          tx.delete(emailTokens)
            .where(and(eq(emailTokens.userId, spent.userId), isNull(emailTokens.usedAt)))
            .run()
          return { status: 'changed', userId: spent.userId, oldEmail: owner.email, newEmail: spent.newEmail }
        }, immediate),
      )
    },

    async listSessions(userId) {
      return db.select().from(sessions).where(eq(sessions.userId, userId)).all().map(toSessionInfo)
    },

    async deleteUserSession(userId, sessionId) {
      const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId))
      return durable(() => db.delete(sessions).where(mine).run().changes === 1)
    },

    async deleteOtherSessions(userId, keepSessionId) {
      const others = and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))
      return durable(() =>
        db
          .delete(sessions)
          .where(others)
          .returning({ id: sessions.id })
          .all()
          .map((row) => row.id),
      )
    },

    async trimSessions(userId, keep) {
      const beyond = trimmedSessions(userId, keep)
      return durable(() =>
        db
          .delete(sessions)
          .where(beyond)
          .returning({ id: sessions.id })
          .all()
          .map((row) => row.id),
      )
    },

    async deleteUser(userId, credentialsVersion) {
      // Sessions and tokens go with the user (ON DELETE CASCADE), in the same statement.
      const current = and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion))
      return durable(() => db.delete(users).where(current).run().changes === 1)
    },

    async findTwoFactor(userId) {
      const row = db
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
        .get()
      return row ?? null
    },

    async setPendingTwoFactor(userId, secret, now) {
      const written = db
        .insert(twoFactors)
        .values({ userId, secret, createdAt: now })
        .onConflictDoUpdate({
          target: twoFactors.userId,
          set: { secret, createdAt: now, lastStep: null },
          setWhere: isNull(twoFactors.enabledAt),
        })
        .run()
      return written.changes === 1
    },

    async enableTwoFactor({ userId, secret, step, recoveryCodeHashes, keepSessionId, now }) {
      return durable(() =>
        db.transaction((tx) => {
          const enabled = tx
            .update(twoFactors)
            .set({ enabledAt: now, lastStep: step })
            .where(
              and(eq(twoFactors.userId, userId), eq(twoFactors.secret, secret), isNull(twoFactors.enabledAt), newerStep(step)),
            )
            .run()
          if (enabled.changes !== 1) return null
          tx.update(users)
            .set({ credentialsVersion: sql`${users.credentialsVersion} + 1` })
            .where(eq(users.id, userId))
            .run()
          tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run()
          tx.insert(recoveryCodes)
            .values(recoveryCodeHashes.map((hash) => ({ hash, userId })))
            .run()
          return tx
            .delete(sessions)
            .where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)))
            .returning({ id: sessions.id })
            .all()
            .map((row) => row.id)
        }, immediate),
      )
    },

    async useTotpStep(userId, step) {
      const mine = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(step))
      return durable(() => db.update(twoFactors).set({ lastStep: step }).where(mine).run().changes === 1)
    },

    async useRecoveryCode(userId, codeHash, now) {
      const unused = and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))
      return durable(() => db.update(recoveryCodes).set({ usedAt: now }).where(unused).run().changes === 1)
    },

    async replaceRecoveryCodes(userId, codeHashes) {
      return db.transaction((tx) => {
        const enabled = tx
          .select({ userId: twoFactors.userId })
          .from(twoFactors)
          .where(and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt)))
          .get()
        if (!enabled) return false
        tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run()
        tx.insert(recoveryCodes)
          .values(codeHashes.map((hash) => ({ hash, userId })))
          .run()
        return true
      }, immediate)
    },

    async resealTwoFactor(userId, from, to) {
      const current = and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from))
      return db.update(twoFactors).set({ secret: to }).where(current).run().changes === 1
    },

    async staleSeals({ sealingPrefix, afterUserId, limit }) {
      return db
        .select({ userId: twoFactors.userId, secret: twoFactors.secret })
        .from(twoFactors)
        .where(and(notSealedWith(sealingPrefix), afterUserId === null ? undefined : gt(twoFactors.userId, afterUserId)))
        .orderBy(twoFactors.userId)
        .limit(limit)
        .all()
    },

    async countStaleSeals(sealingPrefix) {
      return db.$count(twoFactors, notSealedWith(sealingPrefix))
    },

    async deleteTwoFactor(userId) {
      return durable(() =>
        db.transaction((tx) => {
          tx.delete(challenges).where(eq(challenges.userId, userId)).run()
          tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run()
          return tx.delete(twoFactors).where(eq(twoFactors.userId, userId)).run().changes === 1
        }, immediate),
      )
    },

    async createAddCredentialCode({ userId, codeHash, expiresAt }) {
      const row = { hash: codeHash, failures: 0, expiresAt }
      db.insert(addCredentialCodes)
        .values({ userId, ...row })
        .onConflictDoUpdate({ target: addCredentialCodes.userId, set: row })
        .run()
    },

    async spendAddCredentialCode({ userId, codeHash, now, maxFailures }) {
      const live = addCredentialCodeLive(userId, now, maxFailures)
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
          .set({ failures: sql`${addCredentialCodes.failures} + 1` })
          .where(live)
          .run()
        return false
      })
    },

    async createChallenge({ hash, userId, credentialsVersion, expiresAt }) {
      db.insert(challenges).values({ hash, userId, credentialsVersion, expiresAt }).run()
    },

    async findChallenge(hash) {
      const row = db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash)).get()
      return row ?? null
    },

    async claimChallenge(hash, now, maxFailures) {
      const claimed = durable(() =>
        db
          .update(challenges)
          .set({ usedAt: now })
          .where(claimable(hash, now, maxFailures))
          .returning({ userId: challenges.userId, credentialsVersion: challenges.credentialsVersion })
          .get(),
      )
      return claimed ?? null
    },

    async failChallenge(hash) {
      db.update(challenges)
        .set({ usedAt: null, failures: sql`${challenges.failures} + 1` })
        .where(eq(challenges.hash, hash))
        .run()
    },

    async rememberDevice({ userId, deviceHash, now, keep }) {
      return db.transaction((tx) => {
        const added = tx.insert(devices).values({ userId, deviceHash, lastSeenAt: now }).onConflictDoNothing().run().changes
        if (added === 0) {
          tx.update(devices)
            .set({ lastSeenAt: now })
            .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
            .run()
          return false
        }
        const kept = tx
          .select({ rowid: sql`rowid` })
          .from(devices)
          .where(eq(devices.userId, userId))
          .orderBy(desc(devices.lastSeenAt), desc(sql`rowid`))
          .limit(keep)
        tx.delete(devices)
          .where(and(eq(devices.userId, userId), notInArray(sql`rowid`, kept)))
          .run()
        return true
      }, immediate)
    },

    async knowsDevice(userId, deviceHash) {
      const row = db
        .select({ userId: devices.userId })
        .from(devices)
        .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
        .get()
      return row !== undefined
    },
  }
}
