/**
 * The API-key facet on PostgreSQL. Under READ COMMITTED two creations could both count 49 keys
 * and both insert: a creation locks its user's row first (the store's lock order), so creations
 * for one account are counted one after the other and the limit holds.
 */
import { count, desc, eq, lte } from 'drizzle-orm'
import { lockUser, type PgDb } from '../postgres/db.js'
import { postgresDeleteBatch } from '../postgres/prune.js'
import { users } from '../postgres/tables.js'
import { apiKeys } from './postgres-tables.js'
import { countedKeys, fromKeyLookup, keyColumns, keyLookupColumns, ownKey, staleUse, toApiKey } from './queries.js'
import type { ApiKeyStore } from './store.js'

export const postgresApiKeys = (db: PgDb): ApiKeyStore => ({
  createApiKey: (input, max, now) =>
    db.transaction(async (tx) => {
      const [owner] = await lockUser(tx, input.userId)
      if (!owner) return false
      const [live] = await tx
        .select({ n: count() })
        .from(apiKeys)
        .where(countedKeys(apiKeys, input.userId, now))
      if ((live?.n ?? 0) >= max) return false
      await tx.insert(apiKeys).values(input)
      return true
    }),

  async findApiKey(hash) {
    const [row] = await db
      .select(keyLookupColumns(apiKeys, users))
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(eq(apiKeys.hash, hash))
    return row ? fromKeyLookup(row) : null
  },

  async listApiKeys(userId) {
    const rows = await db
      .select(keyColumns(apiKeys))
      .from(apiKeys)
      .where(eq(apiKeys.userId, userId))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    return rows.map(toApiKey)
  },

  async deleteApiKey(userId, id) {
    const rows = await db
      .delete(apiKeys)
      .where(ownKey(apiKeys, userId, id))
      .returning({ id: apiKeys.id })
    return rows.length === 1
  },

  async touchApiKey(id, now, since) {
    const rows = await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(staleUse(apiKeys, id, since))
      .returning({ id: apiKeys.id })
    return rows.length === 1
  },

  async revokeApiKeys(userId) {
    const rows = await db.delete(apiKeys).where(eq(apiKeys.userId, userId)).returning({ id: apiKeys.id })
    return rows.length
  },

  pruneApiKeys: (expiredBy, limit) => postgresDeleteBatch(db, apiKeys, apiKeys.id, lte(apiKeys.expiresAt, expiredBy), limit),
})
