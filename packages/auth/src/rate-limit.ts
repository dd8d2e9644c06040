import { AuthError } from './errors.js'
import { isStorableText } from './fields.js'
import { sha256Base64url } from './web.js'
/**
 * Fixed-window attempt limits: the rules (which keys an endpoint counts, 429 with
 * `Retry-After`) and the in-process store. Three promises (docs/reference/limits.md#how-a-limit-counts):
 *
 * - A request refused by one key records nothing: it counts on no key. So a client that is
 *   already limited (one address past its 100) cannot create keys, fill the table or push other
 *   counts, however fast it sends.
 * - A key with attempts in its window is never forgotten before the window ends, however many
 *   other keys arrive; memory stays bounded. The table keeps `maxKeys` exact counters, evicting
 *   only ended windows. While it is full, newcomers are counted in a count-min sketch: hashed
 *   counters that can only over-count, never under-count, so nobody gains attempts from a flood.
 * - Checking and counting the keys of one request is one atomic step, so concurrent requests
 *   cannot slip past a limit together.
 *
 * No maintained limiter fit: `rate-limiter-flexible`'s memory limiter and `hono-rate-limiter`'s
 * memory store keep one entry per key until it expires (unbounded under a flood of keys) and
 * count each key on its own, so a refused request still counts on the others.
 */

/** Attempts allowed per window. */
export interface Limit {
  max: number
  windowSeconds: number
}

/** One key of an attempt, with its limit. */
export interface LimitCheck {
  key: string
  max: number
  windowMs: number
}

/**
 * `refusedBy`: the key whose window ends last among those that refused (it names the policy in the
 * `RateLimit` header; a store that leaves it out gets the endpoint's first key named).
 */
export type Attempt = { allowed: true } | { allowed: false; retryAfterMs: number; refusedBy?: string }

/** Backing store of the limiter; PostgreSQL implements it so instances share counts. */
export interface RateLimitStore {
  /**
   * One attempt against every check, atomically: when each key has had fewer than its `max`
   * attempts in its window, counts one on each and allows; otherwise counts nothing and refuses,
   * saying how long until the last refusing window ends.
   */
  attempt(checks: readonly LimitCheck[], now: number): Promise<Attempt>
}

export interface MemoryRateLimitOptions {
  /** Keys counted exactly. Default 100,000 (about 25 MB at worst). */
  maxKeys?: number
  /** Counters per row of the sketch that counts newcomers while the table is full. Default 65,536. */
  sketchWidth?: number
  /** Rows of the sketch (each a different hash). Default 4. */
  sketchDepth?: number
}

interface Entry {
  count: number
  resetAt: number
}

const fnv1a = (s: string, seed: number): number => {
  let h = seed
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** Count-min sketch over fixed windows aligned to `windowMs`: it resets when a window ends. */
const sketch = (width: number, depth: number, windowMs: number) => {
  const counters = new Uint32Array(width * depth)
  let window = -1
  // Added in this window: while 0 (the table has had room), an estimate is 0 without hashing.
  let added = 0
  const roll = (now: number) => {
    const current = Math.floor(now / windowMs)
    if (current !== window) {
      if (added > 0) counters.fill(0)
      added = 0
      window = current
    }
  }
  // Double hashing: row i uses h1 + i·h2, which is as good as i independent hashes here.
  const slot = (h1: number, h2: number, row: number) => row * width + (((h1 + row * h2) >>> 0) % width)
  return {
    resetAt: (now: number) => (Math.floor(now / windowMs) + 1) * windowMs,
    estimate(key: string, now: number): number {
      roll(now)
      if (added === 0) return 0
      const h1 = fnv1a(key, 0x811c9dc5)
      const h2 = fnv1a(key, 0x9747b28c) | 1
      let min = Number.POSITIVE_INFINITY
      for (let row = 0; row < depth; row++) min = Math.min(min, counters[slot(h1, h2, row)] ?? 0)
      return min
    },
    add(key: string, now: number) {
      roll(now)
      added++
      const h1 = fnv1a(key, 0x811c9dc5)
      const h2 = fnv1a(key, 0x9747b28c) | 1
      for (let row = 0; row < depth; row++) {
        const i = slot(h1, h2, row)
        counters[i] = (counters[i] ?? 0) + 1
      }
    },
  }
}

/** The in-process store: right for one server process. */
export const memoryRateLimitStore = (options: MemoryRateLimitOptions = {}): RateLimitStore & { size(): number } => {
  const maxKeys = options.maxKeys ?? 100_000
  const width = options.sketchWidth ?? 65_536
  const depth = options.sketchDepth ?? 4
  const entries = new Map<string, Entry>()
  const sketches = new Map<number, ReturnType<typeof sketch>>()
  const sketchFor = (windowMs: number) => {
    const known = sketches.get(windowMs)
    if (known) return known
    const made = sketch(width, depth, windowMs)
    sketches.set(windowMs, made)
    return made
  }

  // The oldest entry comes from one long-lived iterator: a Map keeps deleted slots until it
  // rehashes, and a fresh iterator would step over all of them on every call (a flood of new
  // keys made every hit slower the longer it lasted). The iterator is live: it sees entries set later.
  let cursor = entries.entries()
  const oldest = (): [string, Entry] | undefined => {
    let next = cursor.next()
    if (next.done) {
      cursor = entries.entries()
      next = cursor.next()
    }
    return next.done ? undefined : next.value
  }
  // Frees one slot whose window has ended, looking at a bounded number of the oldest entries;
  // one still in its window is moved to the back, so the walk stays short. After a walk that
  // freed nothing, no walk until the earliest end it saw: a flood of newcomers into a full table
  // then costs a sketch update each, not eight Map moves.
  let noRoomUntil = 0
  const makeRoom = (now: number): boolean => {
    if (now < noRoomUntil) return false
    let earliest = Number.POSITIVE_INFINITY
    for (let steps = 0; steps < 8; steps++) {
      const next = oldest()
      if (!next) break
      const [key, entry] = next
      entries.delete(key)
      if (entry.resetAt <= now) return true
      entries.set(key, entry)
      earliest = Math.min(earliest, entry.resetAt)
    }
    noRoomUntil = Number.isFinite(earliest) ? earliest : 0
    return false
  }

  /** The key's count in its window: exact when tracked, else the sketch's (over-)estimate. */
  const current = ({ key, windowMs }: LimitCheck, now: number): Entry => {
    const entry = entries.get(key)
    if (entry && entry.resetAt > now) return entry
    if (entry) entries.delete(key)
    const s = sketchFor(windowMs)
    const estimate = s.estimate(key, now)
    return { count: estimate, resetAt: estimate > 0 ? s.resetAt(now) : now + windowMs }
  }

  const count = (check: LimitCheck, seen: Entry, now: number) => {
    const entry = entries.get(check.key)
    if (entry) {
      entry.count++
      return
    }
    // A newcomer gets an exact counter when there is room. It starts from what the sketch had
    // counted for it, so moving it over never forgets an attempt.
    if (entries.size < maxKeys || makeRoom(now)) entries.set(check.key, { count: seen.count + 1, resetAt: seen.resetAt })
    else sketchFor(check.windowMs).add(check.key, now)
  }

  return {
    size: () => entries.size,
    async attempt(checks, now) {
      const seen = checks.map((check) => current(check, now))
      let retryAfterMs = 0
      let refusedBy = ''
      checks.forEach((check, i) => {
        const entry = seen[i] as Entry
        if (entry.count >= check.max && entry.resetAt - now > retryAfterMs) {
          retryAfterMs = entry.resetAt - now
          refusedBy = check.key
        }
      })
      if (retryAfterMs > 0) return { allowed: false, retryAfterMs, refusedBy }
      checks.forEach((check, i) => {
        count(check, seen[i] as Entry, now)
      })
      return { allowed: true }
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
export const limitKey = (endpoint: string, kind: string, value: string): string => {
  // join() makes one flat string. A template literal would leave V8 a tree of pieces for every
  // stored key, about half as much heap again (docs/PERFORMANCE.md, scenario 7).
  const key = [endpoint, kind, value].join(':')
  // The value is read before validation: text a store cannot hold is hashed like a long one.
  return key.length <= LONG_KEY && isStorableText(value) ? key : [endpoint, ':', kind, '#', sha256Base64url(value)].join('')
}

/** One key an endpoint counts: its kind (`ip`, `email`, `user`, `session`), its limit, and its value for a request's facts `F`. */
export interface KeyRule<F> {
  kind: string
  limit: Limit
  /** `null`: the request has no such key (no email in the body); it counts on the others. */
  valueOf(facts: F): string | null | Promise<string | null>
  /** The answer when this key refuses, instead of the 429. */
  refusal?: () => Error
}

/** The name of a limit in the `RateLimit-Policy` and `RateLimit` fields: `login-ip`, `login-email`. */
const policyName = (endpoint: string, rule: { kind: string }) => `${endpoint}-${rule.kind}`

/**
 * An attempt of one endpoint: throws 429 once any of its keys has used up its window, with
 * `Retry-After` and the IETF `RateLimit-Policy` / `RateLimit` fields
 * (draft-ietf-httpapi-ratelimit-headers): every limit of the endpoint (`q` attempts per `w`
 * seconds), and the one that refused, with nothing left (`r=0`) for `t` seconds. `onRefused` is
 * told first (the `rate_limited` event).
 */
export const rateLimiter =
  (deps: { store: RateLimitStore; now: () => Date }) =>
  <F>(endpoint: string, rules: readonly KeyRule<F>[], onRefused: (facts: F) => void = () => {}) => {
    const policy = rules
      .map((rule) => `"${policyName(endpoint, rule)}";q=${rule.limit.max};w=${rule.limit.windowSeconds}`)
      .join(', ')
    return async function rateLimit(facts: F): Promise<void> {
      const now = deps.now().getTime()
      const counted: { rule: KeyRule<F>; check: LimitCheck }[] = []
      for (const rule of rules) {
        const value = await rule.valueOf(facts)
        if (value === null) continue
        const check = {
          key: limitKey(endpoint, rule.kind, value),
          max: rule.limit.max,
          windowMs: rule.limit.windowSeconds * 1000,
        }
        counted.push({ rule, check })
      }
      const attempt = await deps.store.attempt(
        counted.map(({ check }) => check),
        now,
      )
      if (attempt.allowed) return
      const retryAfter = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000))
      const refused = counted.find(({ check }) => check.key === attempt.refusedBy)?.rule ?? counted[0]?.rule
      onRefused(facts)
      if (refused?.refusal) throw refused.refusal()
      throw new AuthError('rate_limited', {
        detail: `Too many attempts. Try again in ${retryAfter} seconds.`,
        headers: {
          'Retry-After': String(retryAfter),
          'RateLimit-Policy': policy,
          ...(refused && { RateLimit: `"${policyName(endpoint, refused)}";r=0;t=${retryAfter}` }),
        },
      })
    }
  }
