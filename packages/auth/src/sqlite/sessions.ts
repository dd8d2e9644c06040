/** The sessions facet (`store/sessions.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { and, eq, exists, ne, sql } from 'drizzle-orm'
import { versionIs } from '../store/predicates.js'
import { newSessionRow, toRefreshState, toSessionInfo, toUser } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns, sessionLookupDecoder } from '../store/session-lookup.js'
import type { SessionStore } from '../store/sessions.js'
import type { UserRecord } from '../store/users.js'
import { type Durable, immediate, preparedOnce, preparedRowsOfUser, type SyncSqliteDb } from './db.js'
import { sessions, trimmedSessions, users } from './schema.js'

export const sqliteSessions = (db: SyncSqliteDb, durable: Durable): SessionStore<UserRecord> => {
  const p = sql.placeholder
  const lookupColumns = sessionLookupColumns(sessions, users)
  const lookupRow = sessionLookupDecoder(lookupColumns)
  // Every guarded request and every login: built and prepared once.
  const hot = preparedOnce(() => ({
    // Only the columns it needs, flat (never the password hash). A nested select of both whole
    // rows costs measurably more per lookup (docs/PERFORMANCE.md).
    sessionById: db
      .select(lookupColumns)
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.id, p('id')))
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
    // Every sign-in asks whether the account is past its session limit; nearly always it is not.
    sessionCount: preparedRowsOfUser(db, sessions, sessions.userId),
    trim: db
      .delete(sessions)
      .where(trimmedSessions(p('userId'), p('keep')))
      .returning({ id: sessions.id })
      .prepare(),
  }))
  return {
    async createSession(input) {
      const { id, userId, createdAt: now, amr, refreshHash, refreshKeyHash, userAgent, ip } = newSessionRow(input)
      const { versionOf, insertSession } = hot()
      // IMMEDIATE: the version read and the insert happen under the write lock a reset needs too.
      return db.transaction(() => {
        if (versionOf.get({ id: userId })?.version !== input.credentialsVersion) return false
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
        .where(versionIs(users, userId, credentialsVersion))
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
      const { sessionCount, trim } = hot()
      // Within the limit: one indexed count and no write (no durable commit, no PRAGMA calls). A
      // sign-in inserts before it trims, so the last of several at once counts every row.
      if ((sessionCount.get({ userId })?.n ?? 0) <= keep) return []
      return durable(() => trim.all({ userId, keep }).map((row) => row.id))
    },
  }
}
