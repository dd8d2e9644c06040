/**
 * Run by limiter-flood.test.ts as `node --expose-gc --import tsx`, alone in its process, so the
 * heap numbers are the limiter's and nothing else's. Prints one JSON line: {@link FloodReport}.
 *
 * 1. The store as createAuth builds it (memoryRateLimitStore(), 100,000 keys): a victim email with
 *    9 of its 10 attempts and a victim address with 99 of 100, then 10^6 attempts from distinct
 *    addresses with distinct emails (the keys forgot-password counts).
 * 2. The routes, with a 500-key store so the table fills within a short run (issue 13):
 *    a. 9 wrong logins for a victim, then 100,100 forgot-password requests with distinct emails
 *       from ONE other address, then the victim's 10th and 11th logins.
 *    b. that flood's address cannot make the limits refuse 40 fresh addresses or the victim's owner.
 *    c. 5,000 distinct addresses fill the table; the victim's partial count survives them.
 */
import { createAuth, memoryRateLimitStore, type PasswordHasher } from '@latchkey/auth'
import { migrateSqlite, openSqlite, sqliteStore } from '@latchkey/auth/sqlite'

export interface FloodReport {
  /** After each 100,000 flood attempts: heap beyond the start after a full GC, RSS growth, ms taken. */
  heapMb: { keys: number; heapMb: number; rssMb: number; ms: number }[]
  /** Exactly tracked keys at the end (at most maxKeys). */
  size: number
  /** The victims' next two attempts after the flood: allowed, then refused. */
  victim: { email: boolean[]; ip: boolean[] }
  route: {
    /** a: the flood's statuses, and the victim's 10th and 11th logins. */
    oneAddressFlood: Record<string, number>
    victimAfterOneAddress: number[]
    /** b: fresh addresses' signups and forgot-passwords, and the owner's login with the right password. */
    freshSignups: Record<string, number>
    freshForgot: Record<string, number>
    ownerLogin: number
    /** c: the flood of many addresses, and the second victim's 10th and 11th logins. */
    manyAddressFlood: Record<string, number>
    victimAfterMany: number[]
  }
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
const tally = (into: Record<string, number>, status: number) => {
  into[status] = (into[status] ?? 0) + 1
}

// ——— 1. the store ———
const base = heap()
const store = memoryRateLimitStore()
const victimEmail = { key: 'forgot-password:email:victim@example.com', max: 10, windowMs: WINDOW }
const victimIp = { key: 'forgot-password:ip:203.0.113.66', max: 100, windowMs: WINDOW }
for (let i = 0; i < 9; i++) await store.attempt([victimEmail], now)
for (let i = 0; i < 99; i++) await store.attempt([victimIp], now)

const heapMb: FloodReport['heapMb'] = []
let lap = performance.now()
const sample = (keys: number) => {
  const ms = performance.now() - lap
  // A full table must not make each new key walk the Map (that took minutes once).
  if (ms > 8_000) throw new Error(`flood too slow: ${Math.round(ms)} ms for the attempts up to ${keys}`)
  const m = heap()
  heapMb.push({ keys, heapMb: (m.heapUsed - base.heapUsed) / MB, rssMb: (m.rss - base.rss) / MB, ms })
  lap = performance.now()
}
for (let i = 0; i < 1_000_000; i++) {
  await store.attempt(
    [
      { key: `forgot-password:ip:${ipOf(i)}`, max: 100, windowMs: WINDOW },
      { key: `forgot-password:email:flood-${i}@example.com`, max: 10, windowMs: WINDOW },
    ],
    now + 1,
  )
  if ((i + 1) % 100_000 === 0) sample(i + 1)
}
const twice = async (check: typeof victimEmail) => [
  (await store.attempt([check], now + 2)).allowed,
  (await store.attempt([check], now + 2)).allowed,
]
const victim = { email: await twice(victimEmail), ip: await twice(victimIp) }

// ——— 2. the routes ———
const db = openSqlite(':memory:')
migrateSqlite(db)
const hasher: PasswordHasher = {
  hash: async (p) => `$plain$${p}`,
  verify: async (stored, p) => stored === `$plain$${p}`,
  needsRehash: () => false,
}
const auth = createAuth({
  secret: 'limiter-flood-secret-0123456789abcdefXYZ',
  store: sqliteStore(db),
  sendMail: () => {},
  hasher,
  trustProxy: true,
  rateLimit: { store: memoryRateLimitStore({ maxKeys: 500 }) },
  log: () => {},
})
const post = (path: string, body: object, from: string) =>
  auth.routes.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify(body),
  })
const PASSWORD = 'correct horse battery staple'
const owner = await post('/signup', { name: 'V', email: 'victim@example.com', password: PASSWORD }, '198.51.100.250')
if (owner.status !== 201) throw new Error(`signup answered ${owner.status}`)

// a. One address, 100,100 distinct emails, between the victim's 9th and 10th wrong logins.
for (let i = 0; i < 9; i++) await post('/login', { email: 'victim@example.com', password: `wrong ${i}` }, `198.51.100.${i}`)
const oneAddressFlood: Record<string, number> = {}
for (let i = 0; i < 100_100; i++)
  tally(oneAddressFlood, (await post('/forgot-password', { email: `flood-${i}@example.com` }, '203.0.113.99')).status)
const victimAfterOneAddress: number[] = []
for (let i = 0; i < 2; i++)
  victimAfterOneAddress.push(
    (await post('/login', { email: 'victim@example.com', password: `again ${i}` }, `198.51.100.${20 + i}`)).status,
  )

// b. The flooding address does not make the limits refuse anyone else.
const freshSignups: Record<string, number> = {}
const freshForgot: Record<string, number> = {}
for (let i = 0; i < 40; i++) {
  tally(
    freshSignups,
    (await post('/signup', { name: 'F', email: `fresh-${i}@example.com`, password: PASSWORD }, `192.0.2.${i}`)).status,
  )
  tally(freshForgot, (await post('/forgot-password', { email: `fresh-${i}@example.com` }, `192.0.2.${100 + i}`)).status)
}
await post('/signup', { name: 'O', email: 'owner@example.com', password: PASSWORD }, '198.51.100.251')
const ownerLogin = (await post('/login', { email: 'owner@example.com', password: PASSWORD }, '198.51.100.252')).status

// c. Many addresses fill the 500-key table; a second victim's partial count survives them (its
//    login above was the first of its 10).
for (let i = 0; i < 8; i++) await post('/login', { email: 'owner@example.com', password: `wrong ${i}` }, `198.51.101.${i}`)
const manyAddressFlood: Record<string, number> = {}
for (let i = 0; i < 5_000; i++)
  tally(manyAddressFlood, (await post('/forgot-password', { email: `many-${i}@example.com` }, ipOf(i))).status)
const victimAfterMany: number[] = []
for (let i = 0; i < 2; i++)
  victimAfterMany.push(
    (await post('/login', { email: 'owner@example.com', password: `again ${i}` }, `198.51.101.${20 + i}`)).status,
  )
await auth.settled()

const report: FloodReport = {
  heapMb,
  size: store.size(),
  victim,
  route: { oneAddressFlood, victimAfterOneAddress, freshSignups, freshForgot, ownerLogin, manyAddressFlood, victimAfterMany },
  seconds: (performance.now() - started) / 1000,
}
console.log(JSON.stringify(report))
