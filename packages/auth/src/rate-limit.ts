import { createHash } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { AuthError } from './errors.js'
import { isStorableText } from './schemas.js'
/**
 * Fixed-window attempt counters with bounded memory.
 *
 * No maintained limiter fit the two promises together: `rate-limiter-flexible`'s memory
 * limiter and `hono-rate-limiter`'s memory store keep one entry per key until it expires,
 * so a flood of distinct keys grows memory without bound. Here the table holds at most
 * `maxKeys` entries. To admit a new key it evicts an expired or not-yet-limited entry,
 * oldest first. It never evicts a limited key. When every entry is limited, new keys share
 * a fixed array of hashed overflow counters, so memory stays bounded and nothing is let
 * through uncounted.
 */

export interface Hit {
  /** Attempts in the current window, this one included. */
  count: number
  /** Epoch ms when the window ends. */
  resetAt: number
}

/** Backing store of the limiter; PostgreSQL implements it so instances share counts. */
export interface RateLimitStore {
  /** Counts one attempt for `key`; `max` tells the store which keys are limited (never to be evicted). */
  hit(key: string, max: number, windowMs: number, now: number): Promise<Hit>
}

export interface MemoryRateLimitOptions {
  /** Most keys tracked individually. Default 100,000 (about 25 MB at worst). */
  maxKeys?: number
  /** Shared counters for keys that arrive while the table is full of limited keys. Default 4096. */
  overflowSlots?: number
}

interface Entry {
  count: number
  resetAt: number
  max: number
}

const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** The in-process store: right for one server process. */
export const memoryRateLimitStore = (options: MemoryRateLimitOptions = {}): RateLimitStore & { size(): number } => {
  const maxKeys = options.maxKeys ?? 100_000
  const slots = options.overflowSlots ?? 4096
  const entries = new Map<string, Entry>()
  const overflowCount = new Uint32Array(slots)
  const overflowReset = new Float64Array(slots)

  // The oldest entry comes from one long-lived iterator: a Map keeps deleted slots until it
  // rehashes, and a fresh iterator would step over all of them on every call (a flood of new
  // keys made each hit cost hundreds of µs). The iterator is live: it sees entries set later.
  let cursor = entries.entries()
  const oldest = (): [string, Entry] | undefined => {
    let next = cursor.next()
    if (next.done) {
      cursor = entries.entries()
      next = cursor.next()
    }
    return next.done ? undefined : next.value
  }

  // Walks from the oldest entry; a limited one is moved to the back so the walk stays short.
  const makeRoom = (now: number): boolean => {
    for (let steps = 0; steps < 64; steps++) {
      const next = oldest()
      if (!next) return false
      const [key, entry] = next
      entries.delete(key)
      if (entry.resetAt <= now || entry.count < entry.max) return true
      entries.set(key, entry)
    }
    return false
  }

  const overflow = (key: string, windowMs: number, now: number): Hit => {
    const i = fnv1a(key) % slots
    if ((overflowReset[i] ?? 0) <= now) {
      overflowCount[i] = 0
      overflowReset[i] = now + windowMs
    }
    overflowCount[i] = (overflowCount[i] ?? 0) + 1
    return { count: overflowCount[i] ?? 0, resetAt: overflowReset[i] ?? now }
  }

  return {
    size: () => entries.size,
    async hit(key, max, windowMs, now) {
      let entry = entries.get(key)
      if (entry && entry.resetAt <= now) {
        entries.delete(key)
        entry = undefined
      }
      if (!entry) {
        if (entries.size >= maxKeys && !makeRoom(now)) return overflow(key, windowMs, now)
        entry = { count: 0, resetAt: now + windowMs, max }
        entries.set(key, entry)
      }
      entry.count++
      return { count: entry.count, resetAt: entry.resetAt }
    },
  }
}

/** Longest key kept as it is; a longer one is kept as the SHA-256 of its value. */
const LONG_KEY = 64

/**
 * The key of one counter. The email is the body's, counted valid or not, so it can be 64 KiB
 * long (and behind a proxy the address comes from a header): 100,000 such keys would hold
 * gigabytes. Past {@link LONG_KEY} characters the value is replaced by its SHA-256, so every key
 * costs about the same whatever the client sends (pnpm bench, scenario 7).
 */
export const limitKey = (endpoint: string, kind: 'ip' | 'email', value: string): string => {
  // join() makes one flat string. A template literal would leave V8 a tree of pieces for every
  // stored key: 100,000 keys held ~30 MiB of heap instead of ~19 (pnpm bench, scenario 7).
  const key = [endpoint, kind, value].join(':')
  // The value is read before validation: text a store cannot hold is hashed like a long one.
  return key.length <= LONG_KEY && isStorableText(value)
    ? key
    : [endpoint, ':', kind, '#', createHash('sha256').update(value).digest('base64url')].join('')
}

/** Answers 429 with `Retry-After` once the client IP or the email has used up its window. */
export const rateLimiter = (deps: {
  store: RateLimitStore
  ipLimit: { max: number; windowSeconds: number }
  emailLimit: { max: number; windowSeconds: number }
  ipOf: (c: Context) => string
  now: () => Date
}) =>
  function limit(endpoint: string, emailOf: (c: Context) => Promise<string | null>): MiddlewareHandler {
    return async function rateLimit(c, next) {
      const now = deps.now().getTime()
      const email = await emailOf(c)
      const checks: [string, { max: number; windowSeconds: number }][] = [[limitKey(endpoint, 'ip', deps.ipOf(c)), deps.ipLimit]]
      if (email) checks.push([limitKey(endpoint, 'email', email), deps.emailLimit])
      // Every attempt counts against both keys, whatever its outcome.
      const hits = await Promise.all(checks.map(([key, l]) => deps.store.hit(key, l.max, l.windowSeconds * 1000, now)))
      let retryAfter = 0
      hits.forEach((hit, i) => {
        const max = checks[i]?.[1].max ?? 0
        if (hit.count > max) retryAfter = Math.max(retryAfter, Math.ceil((hit.resetAt - now) / 1000))
      })
      if (retryAfter > 0)
        throw new AuthError('rate_limited', {
          detail: `Too many attempts. Try again in ${retryAfter} seconds.`,
          headers: { 'Retry-After': String(retryAfter) },
        })
      await next()
    }
  }
