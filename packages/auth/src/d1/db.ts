/**
 * What every D1 store facet shares. D1 has no interactive transaction, but a `batch()` runs as one
 * transaction, and a database runs one at a time. So every step that must be atomic is one batch
 * whose statements all carry the same guard (the token is unspent, the version is current, the
 * key is pending, …) read from the state before the batch, and whose last statement is the one
 * that ends the guard (spends the token, bumps the version, enables the key). A second request
 * racing the first runs after it, finds the guard false, and every statement of its batch changes
 * nothing. No read-then-write in code.
 */
import { exists, type SQL, sql } from 'drizzle-orm'
import type { DrizzleD1Database } from 'drizzle-orm/d1'
import type * as schema from '../sqlite/schema.js'
import { recoveryCodes, users } from '../sqlite/schema.js'
import { versionIs } from '../store/predicates.js'

export type D1Db = DrizzleD1Database<typeof schema>

/** Rows a write changed, from D1's `meta.changes`. */
export const changes = (result: unknown) => Number((result as { meta?: { changes?: number } } | undefined)?.meta?.changes ?? 0)

/** The guard "the user's credentials version is still `version`". */
export const currentVersion = (db: D1Db, userId: string, version: number) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(users)
      .where(versionIs(users, userId, version)),
  )

/** Inserts `hashes` as `userId`'s recovery codes (hash, user_id, used_at), only while `guard` holds. */
export const insertCodesIf = (db: D1Db, userId: string, hashes: string[], guard: SQL) =>
  // One term over a JSON array: D1 caps the terms of a compound SELECT below ten.
  db.insert(recoveryCodes).select(sql`select value, ${userId}, null from json_each(${JSON.stringify(hashes)}) where ${guard}`)
