/** The sessions facet (`store/sessions.ts`) on Cloudflare D1 (every atomic step one guarded batch, `d1/db.ts`). */
import { and, eq, ne, sql } from 'drizzle-orm'
import { sessions, trimmedSessions, users } from '../sqlite/schema.js'
import { newSessionRow, toRefreshState, toSessionInfo, toUser } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns } from '../store/session-lookup.js'
import type { SessionStore } from '../store/sessions.js'
import type { UserRecord } from '../store/users.js'
import { changes, currentVersion, type D1Db } from './db.js'

export const d1Sessions = (db: D1Db): SessionStore<UserRecord> => ({
  async createSession(input) {
    const { id, userId, amr, refreshHash, refreshKeyHash, userAgent, ip } = newSessionRow(input)
    // One statement: the row is written only while the version the login verified is current.
    const at = input.now.getTime()
    const written = await db.run(
      sql`insert into ${sessions} (id, user_id, created_at, refreshed_at, authenticated_at, amr, refresh_hash, refresh_key_hash, user_agent, ip)
            select ${id}, ${userId}, ${at}, ${at}, ${at}, ${JSON.stringify(amr)}, ${refreshHash}, ${refreshKeyHash}, ${userAgent}, ${ip}
            where ${currentVersion(db, userId, input.credentialsVersion)}`,
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
    const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId), currentVersion(db, userId, credentialsVersion))
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
})
