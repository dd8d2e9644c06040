/**
 * Run by limiter-flood.test.ts as `node --expose-gc --import tsx`, alone in its process, so the
 * heap numbers are the limiter's and nothing else's. Prints one JSON line: {@link FloodReport}.
 *
 * 1. The store as createAuth builds it (memoryRateLimitStore(), 100,000 keys): a victim email and
 *    a victim IP are limited, then 10^6 distinct emails and 10^6 distinct IPs arrive (the keys
 *    forgot-password uses), then 105,000 keys that each get themselves limited.
 * 2. The forgot-password route itself, with a 500-key store so eviction happens within a short
 *    run: a limited victim email stays limited through 5,000 distinct emails and IPs.
 */
import { createAuth, memoryRateLimitStore, type PasswordHasher } from '@latchkey/auth'
import { migrateSqlite, openSqlite, sqliteStore } from '@latchkey/auth/sqlite'

export interface FloodReport {
  /**
   * After each 100,000 flood keys of each kind: heap used beyond the start after a full GC, RSS
   * growth, and the milliseconds those 200,000 hits took.
   */
  heapMb: { keys: number; heapMb: number; rssMb: number; ms: number }[]
  /** Tracked keys at the end (at most maxKeys). */
  size: number
  /** Hits the victims see after each phase: above the limit means still limited. */
  victim: { email: number; ip: number; afterLimitedFlood: number }
  /** The route: 429 for the victim before and after the flood, and the flood's own statuses. */
  route: { before: number; after: number; floodStatuses: Record<string, number> }
  seconds: number
}

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')
const started = performance.now()
const heap = () => {
  gc()
  gc()
  return process.memoryUsage()
}
const MB = 1024 * 1024
const WINDOW = 15 * 60 * 1000
const now = Date.now()
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`

// ——— 1. the store ———
const base = heap()
const store = memoryRateLimitStore()
for (let i = 0; i < 11; i++) await store.hit('forgot-password:email:victim@example.com', 10, WINDOW, now)
for (let i = 0; i < 101; i++) await store.hit('forgot-password:ip:203.0.113.66', 100, WINDOW, now)

const heapMb: FloodReport['heapMb'] = []
let lap = performance.now()
const sample = (keys: number) => {
  const ms = performance.now() - lap
  // Unfixed, a full table made every new key walk past the Map's deleted slots: minutes, not seconds.
  if (ms > 8_000) throw new Error(`flood too slow: ${Math.round(ms)} ms for the hits up to ${keys} keys`)
  const m = heap()
  heapMb.push({ keys, heapMb: (m.heapUsed - base.heapUsed) / MB, rssMb: (m.rss - base.rss) / MB, ms })
  lap = performance.now()
}
for (let i = 0; i < 1_000_000; i++) {
  await store.hit(`forgot-password:ip:${ipOf(i)}`, 100, WINDOW, now + 1)
  await store.hit(`forgot-password:email:flood-${i}@example.com`, 10, WINDOW, now + 1)
  if ((i + 1) % 100_000 === 0) sample(i + 1)
}
const email = (await store.hit('forgot-password:email:victim@example.com', 10, WINDOW, now + 2)).count
const ip = (await store.hit('forgot-password:ip:203.0.113.66', 100, WINDOW, now + 2)).count

// An attacker who gets each of its keys limited fills the table with keys that may not be
// evicted; past 100,000 of them, newcomers share the overflow counters.
for (let i = 0; i < 105_000; i++)
  for (let n = 0; n < 11; n++) await store.hit(`login:email:limited-${i}@x.io`, 10, WINDOW, now + 3)
sample(1_105_000)
const afterLimitedFlood = (await store.hit('forgot-password:email:victim@example.com', 10, WINDOW, now + 4)).count

// ——— 2. the route ———
const db = openSqlite(':memory:')
migrateSqlite(db)
const hasher: PasswordHasher = { hash: async (p) => `$plain$${p}`, verify: async () => false, needsRehash: () => false }
const auth = createAuth({
  secret: 'limiter-flood-secret-0123456789abcdefXYZ',
  store: sqliteStore(db),
  sendMail: () => {},
  hasher,
  trustProxy: true,
  rateLimit: { store: memoryRateLimitStore({ maxKeys: 500 }) },
  log: () => {},
})
const forgot = (mail: string, from: string) =>
  auth.routes.request('/forgot-password', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ email: mail }),
  })
for (let i = 0; i < 10; i++) await forgot('victim@example.com', `198.51.100.${i}`)
const before = (await forgot('victim@example.com', '198.51.100.200')).status
const floodStatuses: Record<string, number> = {}
for (let i = 0; i < 5_000; i++) {
  const { status } = await forgot(`route-flood-${i}@example.com`, ipOf(i))
  floodStatuses[status] = (floodStatuses[status] ?? 0) + 1
}
const after = (await forgot('victim@example.com', '198.51.100.201')).status

const report: FloodReport = {
  heapMb,
  size: store.size(),
  victim: { email, ip, afterLimitedFlood },
  route: { before, after, floodStatuses },
  seconds: (performance.now() - started) / 1000,
}
console.log(JSON.stringify(report))
