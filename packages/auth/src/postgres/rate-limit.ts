/**
 * Rate-limit counters in PostgreSQL, so that every server instance counts against one limit.
 * An attempt checks and counts all its keys in one transaction (fixed windows: the first attempt
 * after a window ends starts a new one); rows whose window ended are pruned.
 * The in-process limiter and the 429 answer live in `../rate-limit.ts`.
 */
import { inArray, lte, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import type { Pool } from 'pg'
import type { Attempt, RateLimitStore } from '../rate-limit.js'
import { rateLimits } from './schema.js'

export interface PostgresRateLimitOptions {
  /**
   * At most one prune per this many ms per instance, run by the hit that finds it due.
   * Default 60,000; 0 disables it (call `prune` yourself).
   */
  pruneIntervalMs?: number
}

/** Rows one prune statement deletes at most, so it never holds many row locks for long. */
const PRUNE_BATCH = 1000

/** The shared store, plus `prune`, which deletes rows whose window has ended and answers how many. */
export type PostgresRateLimitStore = RateLimitStore & {
  /** Deletes every window that ended by `now` (epoch ms), in bounded batches; answers how many. */
  prune(now: number): Promise<number>
}

/**
 * A {@link RateLimitStore} in the `auth_rate_limits` table (created by {@link migratePostgres}).
 * Like the memory store it never forgets an open window; the table holds the keys counted within
 * one window, and pruning removes the rest.
 *
 * @example
 * const auth = createAuth({ secret, sendMail, store: postgresStore(pool), rateLimit: { store: postgresRateLimitStore(pool) } })
 */
export const postgresRateLimitStore = (pool: Pool, options: PostgresRateLimitOptions = {}): PostgresRateLimitStore => {
  const db = drizzle({ client: pool })
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000
  let nextPrune = 0

  /** Deletes windows that ended by `now`, in batches of {@link PRUNE_BATCH}, at most `batches` of them. */
  const prune = async (now: number, batches = Number.POSITIVE_INFINITY): Promise<number> => {
    let total = 0
    for (let batch = 0; batch < batches; batch++) {
      const ended = db
        .select({ key: rateLimits.key })
        .from(rateLimits)
        .where(lte(rateLimits.resetAt, new Date(now)))
        .limit(PRUNE_BATCH)
        .for('update', { skipLocked: true })
      const deleted = (await db.delete(rateLimits).where(inArray(rateLimits.key, ended))).rowCount ?? 0
      total += deleted
      if (deleted < PRUNE_BATCH) break
    }
    return total
  }

  return {
    prune,
    async attempt(checks, now) {
      const keys = [...new Set(checks.map((check) => check.key))].sort()
      const result = await db.transaction(async (tx): Promise<Attempt> => {
        // One transaction-scoped advisory lock per key, always in the same (sorted) order: every
        // instance's attempts on a key queue here, row or no row yet, so the check below and the
        // count after it are one step, and none deadlocks. (A row lock would miss the first attempt
        // on a key: twenty concurrent first guesses would all find no row and all pass.)
        for (const key of keys) await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
        const rows = keys.length
          ? await tx
              .select({ key: rateLimits.key, count: rateLimits.count, resetAt: rateLimits.resetAt })
              .from(rateLimits)
              .where(inArray(rateLimits.key, keys))
          : []
        const found = new Map(rows.map((row) => [row.key, row]))
        let retryAfterMs = 0
        let refusedBy = ''
        for (const { key, max } of checks) {
          const row = found.get(key)
          if (row && row.count >= max && row.resetAt.getTime() - now > retryAfterMs) {
            retryAfterMs = row.resetAt.getTime() - now
            refusedBy = key
          }
        }
        if (retryAfterMs > 0) return { allowed: false, retryAfterMs, refusedBy }

        const start = new Date(now)
        const ended = sql`${rateLimits.resetAt} <= ${start}`
        for (const { key, windowMs } of checks)
          await tx
            .insert(rateLimits)
            .values({ key, count: 1, resetAt: new Date(now + windowMs) })
            .onConflictDoUpdate({
              target: rateLimits.key,
              set: {
                count: sql`case when ${ended} then 1 else ${rateLimits.count} + 1 end`,
                resetAt: sql`case when ${ended} then excluded.reset_at else ${rateLimits.resetAt} end`,
              },
            })
        return { allowed: true }
      })
      if (pruneIntervalMs > 0 && now >= nextPrune) {
        nextPrune = now + pruneIntervalMs
        // One bounded batch on the request path; a backlog goes in the next intervals.
        await prune(now, 1)
      }
      return result
    },
  }
}
