/**
 * Rate-limit counters in PostgreSQL, so that every server instance counts against one limit.
 * Each attempt is one atomic upsert (fixed window: the first hit after a window ends starts a
 * new one); expired rows are pruned so the table holds only keys whose window is still open.
 * The in-process limiter and the 429 answer live in `../rate-limit.ts`.
 */
import { lte, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import type { Pool } from 'pg'
import type { RateLimitStore } from '../rate-limit.js'
import { rateLimits } from './schema.js'

export interface PostgresRateLimitOptions {
  /**
   * At most one prune per this many ms per instance, run by the hit that finds it due.
   * Default 60,000; 0 disables it (call `prune` yourself).
   */
  pruneIntervalMs?: number
}

/** The shared store, plus `prune`, which deletes rows whose window has ended and answers how many. */
export type PostgresRateLimitStore = RateLimitStore & { prune(now: number): Promise<number> }

/**
 * A {@link RateLimitStore} in the `auth_rate_limits` table (created by {@link migratePostgres}).
 * Unlike the memory store it never evicts an open window, so it needs no `max`: the table is
 * bounded by the keys seen within one window, and pruning removes the rest.
 *
 * @example
 * const auth = createAuth({ secret, sendMail, store: postgresStore(pool), rateLimit: { store: postgresRateLimitStore(pool) } })
 */
export const postgresRateLimitStore = (pool: Pool, options: PostgresRateLimitOptions = {}): PostgresRateLimitStore => {
  const db = drizzle({ client: pool })
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000
  let nextPrune = 0

  const prune = async (now: number): Promise<number> => {
    const result = await db.delete(rateLimits).where(lte(rateLimits.resetAt, new Date(now)))
    return result.rowCount ?? 0
  }

  // One statement, so concurrent hits on one key (from any instance) queue on its row lock.
  // Built once and run as a named prepared statement: a client that is already limited costs
  // the server two of these per request and nothing else, so they are the hot path of a flood.
  const p = sql.placeholder
  const ended = sql`${rateLimits.resetAt} <= ${p('start')}`
  const upsert = db
    .insert(rateLimits)
    .values({ key: p('key'), count: 1, resetAt: p('end') })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${ended} then 1 else ${rateLimits.count} + 1 end`,
        resetAt: sql`case when ${ended} then excluded.reset_at else ${rateLimits.resetAt} end`,
      },
    })
    .returning({ count: rateLimits.count, resetAt: rateLimits.resetAt })
    .prepare('latchkey_rate_limit_hit')

  return {
    prune,
    async hit(key, _max, windowMs, now) {
      const [row] = await upsert.execute({ key, start: new Date(now), end: new Date(now + windowMs) })
      if (!row) throw new Error('auth_rate_limits: the upsert returned no row')

      if (pruneIntervalMs > 0 && now >= nextPrune) {
        nextPrune = now + pruneIntervalMs
        await prune(now)
      }
      return { count: row.count, resetAt: row.resetAt.getTime() }
    },
  }
}
