/**
 * Scenario 7: how much resident memory the library's in-memory limiter keeps after `count`
 * distinct keys, shaped as the login route makes them (`login:ip:<address>` and
 * `login:email:<canonical email>`, alternately). Run as
 * `node --expose-gc limiter-memory.js <count> <emailLength>`; prints one JSON line.
 */
import { createHash } from 'node:crypto'
import { memoryRateLimitStore } from '@latchkey/auth'

/** As `limitKey` in packages/auth/src/rate-limit.ts (internal): one flat string; past 64 characters, the value's SHA-256. */
const limitKey = (endpoint: string, kind: 'ip' | 'email', value: string): string => {
  const key = [endpoint, kind, value].join(':')
  return key.length <= 64 ? key : [endpoint, ':', kind, '#', createHash('sha256').update(value).digest('base64url')].join('')
}

const count = Number(process.argv[2])
const emailLength = Number(process.argv[3])
if (!(count > 0 && count <= 2_000_000 && emailLength >= 16 && emailLength <= 70_000))
  throw new Error('usage: node --expose-gc limiter-memory.js <count ≤ 2e6> <emailLength 16..70000>')
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')

const settle = () => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage()
}

/** A distinct email of exactly `length` characters. */
const email = (i: number, length: number): string => {
  const local = `u${i.toString(36)}.`
  const domain = '@bench.test'
  return `${local}${'x'.repeat(Math.max(0, length - local.length - domain.length))}${domain}`
}
const address = (i: number): string =>
  `2001:db8:${((i >>> 16) & 0xffff).toString(16)}:${(i & 0xffff).toString(16)}:5ca1:ab1e:f00d:${(i % 997).toString(16)}`

const before = settle()
const store = memoryRateLimitStore()
const now = Date.now()
const started = performance.now()
for (let i = 0; i < count; i++) {
  const key = i % 2 === 0 ? limitKey('login', 'ip', address(i)) : limitKey('login', 'email', email(i, emailLength))
  await store.attempt([{ key, max: i % 2 === 0 ? 100 : 10, windowMs: 900_000 }], now)
}
const seconds = (performance.now() - started) / 1000
const after = settle()
process.stdout.write(
  `${JSON.stringify({
    count,
    emailLength,
    trackedKeys: store.size(),
    seconds,
    rssGrowthMiB: (after.rss - before.rss) / 2 ** 20,
    heapGrowthMiB: (after.heapUsed - before.heapUsed) / 2 ** 20,
  })}\n`,
)
