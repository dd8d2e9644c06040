/** The sessions facet (`store/sessions.ts`) on SQLite, for every driver (`sqlite/db.ts`). */
import { and, eq, getTableColumns, ne, sql } from 'drizzle-orm'
import { newSessionRow, toRefreshState, toSessionInfo, toUser } from '../store/rows.js'
import { fromSessionLookup, sessionLookupColumns, sessionLookupDecoder } from '../store/session-lookup.js'
import type { SessionStore } from '../store/sessions.js'
import type { UserRecord } from '../store/users.js'
import { changes, currentVersion, preparedRowsOfUser, type SqliteDb, type SqliteSteps } from './db.js'
import { trimmedSessions } from './queries.js'
import { sessions, users } from './schema.js'

export const sqliteSessions = (db: SqliteDb, steps: SqliteSteps): SessionStore<UserRecord> => {
  const p = sql.placeholder
  const lookupColumns = sessionLookupColumns(sessions, users)
  const lookupRow = sessionLookupDecoder(lookupColumns)
  // Every guarded request and every login: built and prepared once.
  const hot = steps.prepared(() => {
    // A new row's values by column (each encoded by its column), in the table's order; the rest null.
    const given: Partial<Record<keyof typeof sessions.$inferSelect, unknown>> = {
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
    }
    const row = Object.entries(getTableColumns(sessions)).map(([name, column]) => {
      const value = given[name as keyof typeof given]
      return value === undefined ? sql`null` : sql.param(value, column)
    })
    return {
      // Only the columns it needs, flat (never the password hash). A nested select of both whole
      // rows costs measurably more per lookup (docs/PERFORMANCE.md).
      sessionById: db
        .select(lookupColumns)
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(eq(sessions.id, p('id')))
        .prepare(),
      // One statement: the row is written only while the version the login verified is current.
      insertSession: db
        .insert(sessions)
        .select(sql`select ${sql.join(row, sql`, `)} where ${currentVersion(db, p('userId'), p('version'))}`)
        .prepare(),
      // Every sign-in asks whether the account is past its session limit; nearly always it is not.
      sessionCount: preparedRowsOfUser(db, sessions, sessions.userId),
      trim: db
        .delete(sessions)
        .where(trimmedSessions(p('userId'), p('keep')))
        .returning({ id: sessions.id })
        .prepare(),
    }
  })
  return {
    async createSession(input) {
      const { id, userId, createdAt: now, amr, refreshHash, refreshKeyHash, userAgent, ip } = newSessionRow(input)
      const values = { id, userId, now, amr, hash: refreshHash, keyHash: refreshKeyHash, userAgent, ip }
      return changes(await hot().insertSession.run({ ...values, version: input.credentialsVersion })) === 1
    },

    async findSession(sessionId) {
      const [values] = await hot().sessionById.values({ id: sessionId })
      return values ? fromSessionLookup(sessionId, lookupRow(values)) : null
    },

    async reauthenticate({ sessionId, userId, credentialsVersion, at, amr }) {
      // One statement, guarded by the version the re-authentication verified.
      const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId), currentVersion(db, userId, credentialsVersion))
      return changes(await steps.durable(() => db.update(sessions).set({ authenticatedAt: at, amr }).where(mine).run())) === 1
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
      return changes(await steps.durable(() => db.update(sessions).set(set).where(current).run())) === 1
    },

    async deleteSession(sessionId) {
      await steps.durable(() => db.delete(sessions).where(eq(sessions.id, sessionId)).run())
    },

    async listSessions(userId) {
      return (await db.select().from(sessions).where(eq(sessions.userId, userId)).all()).map(toSessionInfo)
    },

    async deleteUserSession(userId, sessionId) {
      const mine = and(eq(sessions.id, sessionId), eq(sessions.userId, userId))
      return changes(await steps.durable(() => db.delete(sessions).where(mine).run())) === 1
    },

    async deleteOtherSessions(userId, keepSessionId) {
      const others = and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))
      const deleted = await steps.durable(() => db.delete(sessions).where(others).returning({ id: sessions.id }).all())
      return deleted.map((row) => row.id)
    },

    async trimSessions(userId, keep) {
      const { sessionCount, trim } = hot()
      // Within the limit: one indexed count and no write (no durable commit, no PRAGMA calls). A
      // sign-in inserts before it trims, so the last of several at once counts every row.
      if (((await sessionCount.get({ userId }))?.n ?? 0) <= keep) return []
      return (await steps.durable(() => trim.all({ userId, keep }))).map((row) => row.id)
    },
  }
}
