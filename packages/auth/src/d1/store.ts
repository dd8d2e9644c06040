/**
 * The store on Cloudflare D1 (Workers), on Drizzle's D1 driver and the SQLite schema. D1 has no
 * interactive transaction, but a `batch()` runs as one transaction, and a database runs one at a
 * time. So every step that must be atomic is one batch whose statements all carry the same guard
 * (the token is unspent, the version is current, the key is pending, …) read from the state
 * before the batch, and whose last statement is the one that ends the guard (spends the token,
 * bumps the version, enables the key). A second request racing the first runs after it, finds the
 * guard false, and every statement of its batch changes nothing. No read-then-write in code.
 */
import { and, desc, eq, exists, gt, inArray, isNotNull, isNull, lt, ne, notInArray, or, type SQL, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/d1'
import { emailSignInD1 } from '../email-sign-in/d1.js'
import { sqlitePasskeyStore } from '../passkeys/sqlite-store.js'
import * as schema from '../sqlite/schema.js'
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
} from '../sqlite/schema.js'
import { toRefreshState, toSessionInfo, toUser, withHash } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns } from '../store/session-lookup.js'
import type { EmailChangeOutcome, Store, UserRecord } from '../store/types.js'
import { lastRows, revokeD1 } from './revoke.js'

/** The part of a D1 binding (`env.DB`) the store uses. */
export interface D1DatabaseLike {
  prepare(query: string): unknown
  batch(statements: unknown[]): Promise<unknown[]>
  exec(query: string): Promise<unknown>
}

/** Rows a write changed, from D1's `meta.changes`. */
const changes = (result: unknown) => Number((result as { meta?: { changes?: number } } | undefined)?.meta?.changes ?? 0)

/**
 * A {@link Store} on a D1 database. Call {@link migrateD1} once before use (e.g. at deploy).
 *
 * @example
 * const auth = createAuth({ secret: env.AUTH_SECRET, store: d1Store(env.DB), getConnInfo, sendMail })
 */
export const d1Store = (client: D1DatabaseLike): Store<UserRecord> => {
  // biome-ignore lint/suspicious/noExplicitAny: Drizzle types the client as Cloudflare's D1Database, which this package does not import.
  const db = drizzle(client as any, { schema })
  const versionIs = (userId: string, version: number) =>
    exists(
      db
        .select({ one: sql`1` })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.credentialsVersion, version))),
    )
  /** Inserts `hashes` as `userId`'s recovery codes (hash, user_id, used_at), only while `guard` holds. */
  const insertCodesIf = (userId: string, hashes: string[], guard: SQL) =>
    // One term over a JSON array: D1 caps the terms of a compound SELECT below ten.
    db.insert(recoveryCodes).select(sql`select value, ${userId}, null from json_each(${JSON.stringify(hashes)}) where ${guard}`)
  const newerStep = (step: number) => or(isNull(twoFactors.lastStep), lt(twoFactors.lastStep, step))

  return {
    ...emailSignInD1(db),

    ...sqlitePasskeyStore(db),
    async createUser(input) {
      const [row] = await db.insert(users).values(input).onConflictDoNothing({ target: users.email }).returning()
      return row ? toUser(row) : null
    },

    async findUserByEmail(email) {
      return withHash(await db.select().from(users).where(eq(users.email, email)).get())
    },

    async findUserById(id) {
      return withHash(await db.select().from(users).where(eq(users.id, id)).get())
    },

    async updatePasswordHash(userId, passwordHash, credentialsVersion) {
      const current = and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion))
      return changes(await db.update(users).set({ passwordHash }).where(current).run()) === 1
    },

    async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId, revoke }) {
      const revocation = revokeD1(db, { userId, revoke, keepSessionId }, versionIs(userId, credentialsVersion))
      const [, ...results] = await db.batch([
        revocation.sessions,
        ...revocation.deletes,
        db
          .update(users)
          .set({ passwordHash, ...revocation.user })
          .where(and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion))),
      ])
      return changes(results.at(-1)) === 1
    },

    async setRole(email, role) {
      return changes(await db.update(users).set({ role }).where(eq(users.email, email)).run()) === 1
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
      // One statement: the row is written only while the version the login verified is current.
      const at = now.getTime()
      const written = await db.run(
        sql`insert into ${sessions} (id, user_id, created_at, refreshed_at, authenticated_at, amr, refresh_hash, refresh_key_hash, user_agent, ip)
            select ${id}, ${userId}, ${at}, ${at}, ${at}, ${JSON.stringify(amr)}, ${refreshHash}, ${refreshKeyHash}, ${userAgent}, ${ip}
            where ${versionIs(userId, credentialsVersion)}`,
      )
      return changes(written) === 1
    },

    async findSession(sessionId) {
      const row = await db
        .select(sessionLookupColumns(sessions, users))
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(eq(sessions.id, sessionId))
        .get()
      return row ? fromSessionLookup(sessionId, row) : null
    },

    async reauthenticate({ sessionId, userId, credentialsVersion, at, amr }) {
      // One statement, guarded by the version the re-authentication verified.
      const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId), versionIs(userId, credentialsVersion))
      return changes(await db.update(sessions).set({ authenticatedAt: at, amr }).where(mine).run()) === 1
    },

    async findRefresh(ref) {
      const row = await db
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
      return changes(await db.update(sessions).set(set).where(current).run()) === 1
    },

    async deleteSession(sessionId) {
      await db.delete(sessions).where(eq(sessions.id, sessionId)).run()
    },

    async createResetToken({ userId, tokenHash, expiresAt }) {
      await db.batch([
        db.delete(resetTokens).where(and(eq(resetTokens.userId, userId), isNull(resetTokens.usedAt))),
        db.insert(resetTokens).values({ hash: tokenHash, userId, expiresAt }),
      ])
    },

    async findResetToken(tokenHash, now) {
      const row = await db
        .select({ userId: users.id, email: users.email })
        .from(resetTokens)
        .innerJoin(users, eq(users.id, resetTokens.userId))
        .where(and(eq(resetTokens.hash, tokenHash), isNull(resetTokens.usedAt), gt(resetTokens.expiresAt, now)))
        .get()
      return row ?? null
    },

    async consumeResetToken({ tokenHash, now, passwordHash, revoke }) {
      const live = and(eq(resetTokens.hash, tokenHash), isNull(resetTokens.usedAt), gt(resetTokens.expiresAt, now))
      const unspent = exists(db.select({ one: sql`1` }).from(resetTokens).where(live))
      const owner = sql`(select ${resetTokens.userId} from ${resetTokens} where ${resetTokens.hash} = ${tokenHash})`
      const revocation = revokeD1(db, { userId: owner, revoke, spentHash: tokenHash }, unspent)
      const results = await db.batch([
        // The token came by mail to the account's address: that proves the mailbox too.
        db
          .update(users)
          .set({ passwordHash, emailVerified: true, ...revocation.user })
          .where(and(eq(users.id, owner), unspent)),
        revocation.sessions,
        ...revocation.deletes,
        db.update(resetTokens).set({ usedAt: now }).where(live).returning({ userId: resetTokens.userId }),
      ])
      return lastRows<{ userId: string }>(results)[0]?.userId ?? null
    },

    async prune({ deadIfRefreshedBy, deadIfCreatedBy, now, forgetDevicesSeenBy, limit }) {
      const deadSessions = db
        .select({ id: sessions.id })
        .from(sessions)
        .where(
          or(
            sql`${sessions.refreshedAt} <= ${deadIfRefreshedBy.getTime()}`,
            sql`${sessions.createdAt} <= ${deadIfCreatedBy.getTime()}`,
          ),
        )
        .limit(limit)
      const spent = <T extends typeof resetTokens | typeof emailTokens | typeof challenges>(table: T) =>
        db
          .select({ hash: table.hash })
          .from(table)
          .where(or(isNotNull(table.usedAt), sql`${table.expiresAt} <= ${now.getTime()}`))
          .limit(limit)
      const expiredCodes = db
        .select({ userId: addCredentialCodes.userId })
        .from(addCredentialCodes)
        .where(sql`${addCredentialCodes.expiresAt} <= ${now.getTime()}`)
        .limit(limit)
      const results = await db.batch([
        db.delete(sessions).where(inArray(sessions.id, deadSessions)),
        db.delete(resetTokens).where(inArray(resetTokens.hash, spent(resetTokens))),
        db.delete(emailTokens).where(inArray(emailTokens.hash, spent(emailTokens))),
        db.delete(challenges).where(inArray(challenges.hash, spent(challenges))),
        db.delete(addCredentialCodes).where(inArray(addCredentialCodes.userId, expiredCodes)),
        db
          .delete(devices)
          .where(
            inArray(
              sql`rowid`,
              db
                .select({ rowid: sql`rowid` })
                .from(devices)
                .where(sql`${devices.lastSeenAt} <= ${forgetDevicesSeenBy.getTime()}`)
                .limit(limit),
            ),
          ),
      ])
      const [s, r, e, c, a, d] = results.map(changes) as [number, number, number, number, number, number]
      return { sessions: s, resetTokens: r, emailTokens: e, challenges: c, addCredentialCodes: a, devices: d }
    },

    async createEmailToken({ kind, userId, tokenHash, expiresAt, newEmail }) {
      await db.batch([
        db.delete(emailTokens).where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt))),
        db.insert(emailTokens).values({ hash: tokenHash, userId, kind, newEmail: newEmail ?? null, expiresAt }),
      ])
    },

    async findEmailToken(tokenHash, kind, now) {
      const row = await db
        .select({ userId: users.id, email: users.email })
        .from(emailTokens)
        .innerJoin(users, eq(users.id, emailTokens.userId))
        .where(
          and(
            eq(emailTokens.hash, tokenHash),
            eq(emailTokens.kind, kind),
            isNull(emailTokens.usedAt),
            gt(emailTokens.expiresAt, now),
          ),
        )
        .get()
      return row ?? null
    },

    async verifyEmail({ tokenHash, now, revoke }) {
      const live = and(
        eq(emailTokens.hash, tokenHash),
        eq(emailTokens.kind, 'verify-email'),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, now),
      )
      const unspent = exists(db.select({ one: sql`1` }).from(emailTokens).where(live))
      const owner = sql`(select ${emailTokens.userId} from ${emailTokens} where ${emailTokens.hash} = ${tokenHash})`
      const revocation = revokeD1(db, { userId: owner, revoke, spentHash: tokenHash }, unspent)
      const results = await db.batch([
        db
          .update(users)
          .set({ emailVerified: true, ...revocation.user })
          .where(and(eq(users.id, owner), unspent)),
        revocation.sessions,
        ...revocation.deletes,
        db.update(emailTokens).set({ usedAt: now }).where(live).returning({ userId: emailTokens.userId }),
      ])
      return lastRows<{ userId: string }>(results)[0]?.userId ?? null
    },

    async confirmEmailChange({ tokenHash, now, revoke }): Promise<EmailChangeOutcome> {
      const live = and(
        eq(emailTokens.hash, tokenHash),
        eq(emailTokens.kind, 'change-email'),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, now),
      )
      const unspent = exists(
        db
          .select({ one: sql`1` })
          .from(emailTokens)
          .where(and(live, isNotNull(emailTokens.newEmail))),
      )
      const owner = sql`(select ${emailTokens.userId} from ${emailTokens} where ${emailTokens.hash} = ${tokenHash})`
      const address = sql`(select ${emailTokens.newEmail} from ${emailTokens} where ${emailTokens.hash} = ${tokenHash})`
      // Another account holds the new address: nothing changes but the spent token.
      const free = sql`not exists (select 1 from ${users} as holder where holder.email = ${address} and holder.id <> ${owner})`
      // After the update: the owner's address is the new one.
      const moved = exists(
        db
          .select({ one: sql`1` })
          .from(users)
          .where(and(eq(users.id, owner), eq(users.email, address))),
      )
      const revocation = revokeD1(db, { userId: owner, revoke, spentHash: tokenHash }, and(unspent, moved))
      const results = await db.batch([
        db.select({ email: users.email }).from(users).where(eq(users.id, owner)),
        db
          .update(users)
          .set({ email: address, emailVerified: true, ...revocation.user })
          .where(and(eq(users.id, owner), unspent, free)),
        revocation.sessions,
        ...revocation.deletes,
        db
          .update(emailTokens)
          .set({ usedAt: now })
          .where(live)
          .returning({ userId: emailTokens.userId, newEmail: emailTokens.newEmail }),
      ])
      const before = results[0][0]
      const [spent] = lastRows<{ userId: string; newEmail: string | null }>(results)
      if (!spent?.newEmail || !before) return { status: 'invalid' }
      if (changes(results[1]) !== 1) return { status: 'taken', userId: spent.userId }
      return { status: 'changed', userId: spent.userId, oldEmail: before.email, newEmail: spent.newEmail }
    },

    async listSessions(userId) {
      return (await db.select().from(sessions).where(eq(sessions.userId, userId)).all()).map(toSessionInfo)
    },

    async deleteUserSession(userId, sessionId) {
      const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId))
      return changes(await db.delete(sessions).where(mine).run()) === 1
    },

    async deleteOtherSessions(userId, keepSessionId) {
      const others = and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))
      return (await db.delete(sessions).where(others).returning({ id: sessions.id })).map((row) => row.id)
    },

    async trimSessions(userId, keep) {
      const beyond = trimmedSessions(userId, keep)
      return (await db.delete(sessions).where(beyond).returning({ id: sessions.id })).map((row) => row.id)
    },

    async deleteUser(userId, credentialsVersion) {
      // Sessions and tokens go with the user (ON DELETE CASCADE; D1 enforces foreign keys).
      const current = and(eq(users.id, userId), eq(users.credentialsVersion, credentialsVersion))
      // Counted by RETURNING: D1's `changes` counts the cascaded rows too.
      return (await db.delete(users).where(current).returning({ id: users.id })).length === 1
    },

    async findTwoFactor(userId) {
      const row = await db
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
      const written = await db
        .insert(twoFactors)
        .values({ userId, secret, createdAt: now })
        .onConflictDoUpdate({
          target: twoFactors.userId,
          set: { secret, createdAt: now, lastStep: null },
          setWhere: isNull(twoFactors.enabledAt),
        })
        .run()
      return changes(written) === 1
    },

    async enableTwoFactor({ userId, secret, step, recoveryCodeHashes, keepSessionId, now, revoke }) {
      const pendingRow = and(
        eq(twoFactors.userId, userId),
        eq(twoFactors.secret, secret),
        isNull(twoFactors.enabledAt),
        newerStep(step),
      )
      const pending = exists(db.select({ one: sql`1` }).from(twoFactors).where(pendingRow))
      const revocation = revokeD1(db, { userId, revoke, keepSessionId }, pending)
      const results = await db.batch([
        revocation.userUpdate,
        db.delete(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), pending)),
        insertCodesIf(userId, recoveryCodeHashes, pending),
        revocation.sessions,
        ...revocation.deletes,
        db.update(twoFactors).set({ enabledAt: now, lastStep: step }).where(pendingRow),
      ])
      if (changes(results.at(-1)) !== 1) return null
      return results[3].map((row) => row.id)
    },

    async useTotpStep(userId, step) {
      const mine = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt), newerStep(step))
      return changes(await db.update(twoFactors).set({ lastStep: step }).where(mine).run()) === 1
    },

    async useRecoveryCode(userId, codeHash, now) {
      const unused = and(eq(recoveryCodes.hash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))
      return changes(await db.update(recoveryCodes).set({ usedAt: now }).where(unused).run()) === 1
    },

    async replaceRecoveryCodes(userId, codeHashes) {
      const enabledRow = and(eq(twoFactors.userId, userId), isNotNull(twoFactors.enabledAt))
      const enabled = exists(db.select({ one: sql`1` }).from(twoFactors).where(enabledRow))
      const results = await db.batch([
        db.delete(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), enabled)),
        insertCodesIf(userId, codeHashes, enabled),
        db.select({ userId: twoFactors.userId }).from(twoFactors).where(enabledRow),
      ])
      return results[2].length === 1
    },

    async resealTwoFactor(userId, from, to) {
      const current = and(eq(twoFactors.userId, userId), eq(twoFactors.secret, from))
      return changes(await db.update(twoFactors).set({ secret: to }).where(current).run()) === 1
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
      // No guard: turning it off changes nothing a concurrent call could spend twice.
      const revocation = revokeD1(db, { userId, revoke, keepSessionId }, undefined)
      const [deleted] = await db.batch([
        db.delete(twoFactors).where(eq(twoFactors.userId, userId)),
        revocation.userUpdate,
        revocation.sessions,
        ...revocation.deletes,
      ])
      return changes(deleted) === 1
    },

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
      const live = and(
        eq(addCredentialCodes.userId, userId),
        gt(addCredentialCodes.expiresAt, now),
        lt(addCredentialCodes.failures, maxFailures),
      )
      const right = and(live, eq(addCredentialCodes.hash, codeHash))
      if (changes(await db.delete(addCredentialCodes).where(right).run()) === 1) return true
      await db
        .update(addCredentialCodes)
        .set({ failures: sql`${addCredentialCodes.failures} + 1` })
        .where(live)
        .run()
      return false
    },

    async createChallenge({ hash, userId, credentialsVersion, expiresAt }) {
      await db.insert(challenges).values({ hash, userId, credentialsVersion, expiresAt }).run()
    },

    async findChallenge(hash) {
      const row = await db.select({ userId: challenges.userId }).from(challenges).where(eq(challenges.hash, hash)).get()
      return row ?? null
    },

    async claimChallenge(hash, now, maxFailures) {
      const [claimed] = await db
        .update(challenges)
        .set({ usedAt: now })
        .where(
          and(
            eq(challenges.hash, hash),
            isNull(challenges.usedAt),
            gt(challenges.expiresAt, now),
            lt(challenges.failures, maxFailures),
          ),
        )
        .returning({ userId: challenges.userId, credentialsVersion: challenges.credentialsVersion })
      return claimed ?? null
    },

    async failChallenge(hash) {
      await db
        .update(challenges)
        .set({ usedAt: null, failures: sql`${challenges.failures} + 1` })
        .where(eq(challenges.hash, hash))
        .run()
    },

    async rememberDevice({ userId, deviceHash, now, keep }) {
      const mine = and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash))
      const kept = db
        .select({ rowid: sql`rowid` })
        .from(devices)
        .where(eq(devices.userId, userId))
        .orderBy(desc(devices.lastSeenAt), desc(sql`rowid`))
        .limit(keep)
      // One batch: the insert adds the row only when it is new; the update marks the sign-in
      // either way; the delete keeps the `keep` most recently seen.
      const [added] = await db.batch([
        db.insert(devices).values({ userId, deviceHash, lastSeenAt: now }).onConflictDoNothing(),
        db.update(devices).set({ lastSeenAt: now }).where(mine),
        db.delete(devices).where(and(eq(devices.userId, userId), notInArray(sql`rowid`, kept))),
      ])
      return changes(added) > 0
    },

    async knowsDevice(userId, deviceHash) {
      const row = await db
        .select({ userId: devices.userId })
        .from(devices)
        .where(and(eq(devices.userId, userId), eq(devices.deviceHash, deviceHash)))
        .get()
      return row !== undefined
    },
  }
}
