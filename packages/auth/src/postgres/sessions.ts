/** The sessions facet (`store/sessions.ts`) on PostgreSQL (READ COMMITTED: conditional `UPDATE … RETURNING` decides each single use; row locks in the store's lock order, `postgres/db.ts`). */
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm'
import { newSessionRow, toRefreshState, toSessionInfo, toUser } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns } from '../store/session-lookup.js'
import type { SessionStore } from '../store/sessions.js'
import type { UserRecord } from '../store/users.js'
import type { PgDb } from './db.js'
import { sessions, users } from './schema.js'

export const postgresSessions = (db: PgDb): SessionStore<UserRecord> => {
  // Every guarded request: a named prepared statement, parsed and planned once per connection;
  // building it with Drizzle on every call cost more CPU than the round trip (docs/PERFORMANCE.md).
  const sessionById = db
    .select(sessionLookupColumns(sessions, users))
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare('latchkey_session_by_id')
  return {
    async createSession(input) {
      const row = newSessionRow(input)
      return db.transaction(async (tx) => {
        // FOR SHARE conflicts with the row lock of a password change or reset: either it waits
        // for them and reads their new version, or they wait for this session and then delete it.
        const [user] = await tx
          .select({ version: users.credentialsVersion })
          .from(users)
          .where(eq(users.id, row.userId))
          .for('share')
        if (user?.version !== input.credentialsVersion) return false
        await tx.insert(sessions).values(row)
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
  }
}
