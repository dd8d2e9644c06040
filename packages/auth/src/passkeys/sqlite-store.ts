/**
 * The passkey facet on SQLite, for every driver the SQLite schema runs on: better-sqlite3,
 * `bun:sqlite`, `node:sqlite` and D1. Each step is one statement, atomic on its own (SQLite runs
 * one writer at a time), so the same code serves the synchronous drivers and D1's async one.
 */
import { and, eq, ne, or, sql } from 'drizzle-orm'
import type { SqliteDb } from '../sqlite/db.js'
import { sqliteDeleteBatch } from '../sqlite/prune.js'
import { identities } from '../sqlite/schema.js'
import { users } from '../sqlite/tables.js'
import { spentOrExpired } from '../store/predicates.js'
import { boundColumns, claimablePasskeyChallenge, ownPasskey } from './queries.js'
import { passkeyChallenges, passkeys } from './sqlite-tables.js'
import type { PasskeyRecord, PasskeyStore } from './store.js'

const toPasskey = (row: typeof passkeys.$inferSelect): PasskeyRecord => ({ ...row })

export const sqlitePasskeyStore = (db: SqliteDb): PasskeyStore => ({
  async createPasskey(input) {
    const rows = await db.insert(passkeys).values(input).onConflictDoNothing().returning({ id: passkeys.id })
    return rows.length === 1
  },

  async findPasskey(id) {
    const [row] = await db.select().from(passkeys).where(eq(passkeys.id, id))
    return row ? toPasskey(row) : null
  },

  async listPasskeys(userId) {
    const rows = await db.select().from(passkeys).where(eq(passkeys.userId, userId))
    return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)).map(toPasskey)
  },

  async renamePasskey(userId, id, name) {
    const [row] = await db
      .update(passkeys)
      .set({ name })
      .where(ownPasskey(passkeys, userId, id))
      .returning()
    return row ? toPasskey(row) : null
  },

  async deletePasskey(userId, id) {
    const others = db
      .select({ one: sql`1` })
      .from(passkeys)
      .where(and(eq(passkeys.userId, userId), ne(passkeys.id, id)))
    const password = db
      .select({ one: sql`1` })
      .from(users)
      .where(and(eq(users.id, userId), ne(users.passwordHash, '')))
    const identity = db.select({ one: sql`1` }).from(identities).where(eq(identities.userId, userId))
    const deleted = await db
      .delete(passkeys)
      .where(
        and(
          eq(passkeys.id, id),
          eq(passkeys.userId, userId),
          or(sql`exists ${password}`, sql`exists ${others}`, sql`exists ${identity}`),
        ),
      )
      .returning({ id: passkeys.id })
    if (deleted.length === 1) return 'deleted'
    const [kept] = await db
      .select({ id: passkeys.id })
      .from(passkeys)
      .where(ownPasskey(passkeys, userId, id))
    return kept ? 'last_sign_in' : 'not_found'
  },

  async usePasskey({ id, counter, backedUp, now }) {
    const rows = await db
      .update(passkeys)
      .set({ counter, backedUp, lastUsedAt: now })
      .where(
        and(eq(passkeys.id, id), or(sql`${passkeys.counter} < ${counter}`, and(eq(passkeys.counter, 0), sql`${counter} = 0`))),
      )
      .returning({ id: passkeys.id })
    return rows.length === 1
  },

  async createPasskeyChallenge(input, now) {
    await db.delete(passkeyChallenges).where(spentOrExpired(passkeyChallenges, now))
    await db.insert(passkeyChallenges).values(input)
  },

  async findPasskeyChallenge(hash, purpose, now) {
    const [live] = await db
      .select(boundColumns(passkeyChallenges))
      .from(passkeyChallenges)
      .where(claimablePasskeyChallenge(passkeyChallenges, hash, purpose, now))
    return live ?? null
  },

  async claimPasskeyChallenge(hash, purpose, now) {
    const [claimed] = await db
      .update(passkeyChallenges)
      .set({ usedAt: now })
      .where(claimablePasskeyChallenge(passkeyChallenges, hash, purpose, now))
      .returning(boundColumns(passkeyChallenges))
    return claimed ?? null
  },

  prunePasskeyChallenges: (now, limit) =>
    sqliteDeleteBatch(db, passkeyChallenges, passkeyChallenges.hash, spentOrExpired(passkeyChallenges, now), limit),
})
