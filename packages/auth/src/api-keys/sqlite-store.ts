/**
 * The API-key facet on SQLite, for every driver the SQLite schema runs on (`sqlite/db.ts`). Each
 * step is one statement, atomic on its own (SQLite runs one writer at a time): a creation inserts
 * only while the account is under the limit, counted in the same statement.
 */
import { count, eq, getTableColumns, lte, sql } from 'drizzle-orm'
import { changes, type SqliteDb, type SqliteSteps } from '../sqlite/db.js'
import { sqliteDeleteBatch } from '../sqlite/prune.js'
import { users } from '../sqlite/tables.js'
import {
  countedKeys,
  fromKeyLookup,
  type KeyLookupRow,
  keyColumns,
  keyLookupColumns,
  newestFirst,
  ownKey,
  staleUse,
  toApiKey,
} from './queries.js'
import { apiKeys } from './sqlite-tables.js'
import type { ApiKeyStore } from './store.js'

export const sqliteApiKeys = (db: SqliteDb, steps: SqliteSteps): ApiKeyStore => {
  // Every request that carries a key: built and prepared once.
  const hot = steps.prepared(() => ({
    byHash: db
      .select(keyLookupColumns(apiKeys, users))
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(eq(apiKeys.hash, sql.placeholder('hash')))
      .prepare(),
  }))
  return {
    async createApiKey(input, max, now) {
      const values: Record<string, unknown> = { ...input, lastUsedAt: null }
      const row = Object.entries(getTableColumns(apiKeys)).map(([name, column]) => sql.param(values[name] ?? null, column))
      const live = db
        .select({ n: count() })
        .from(apiKeys)
        .where(countedKeys(apiKeys, input.userId, now))
      const inserted = await db
        .insert(apiKeys)
        .select(sql`select ${sql.join(row, sql`, `)} where (${live}) < ${max}`)
        .run()
      return changes(inserted) === 1
    },

    async findApiKey(hash) {
      const row = await hot().byHash.get({ hash })
      return row ? fromKeyLookup(row as KeyLookupRow) : null
    },

    async listApiKeys(userId) {
      const rows = await db.select(keyColumns(apiKeys)).from(apiKeys).where(eq(apiKeys.userId, userId))
      return rows.map(toApiKey).sort(newestFirst)
    },

    async deleteApiKey(userId, id) {
      return (
        changes(
          await steps.durable(() =>
            db
              .delete(apiKeys)
              .where(ownKey(apiKeys, userId, id))
              .run(),
          ),
        ) === 1
      )
    },

    async touchApiKey(id, now, since) {
      return (
        changes(
          await db
            .update(apiKeys)
            .set({ lastUsedAt: now })
            .where(staleUse(apiKeys, id, since))
            .run(),
        ) === 1
      )
    },

    async revokeApiKeys(userId) {
      return changes(await steps.durable(() => db.delete(apiKeys).where(eq(apiKeys.userId, userId)).run()))
    },

    pruneApiKeys: (expiredBy, limit) => sqliteDeleteBatch(db, apiKeys, apiKeys.id, lte(apiKeys.expiresAt, expiredBy), limit),
  }
}
