/**
 * Baseline (c): raw `@node-rs/argon2` verify at the library's default parameters, through the
 * same async (thread-pool) API the library uses, one at a time. Run pinned to the server core
 * as `node argon2-verify.js <warmup> <count>` with ARGON2_HASH set; prints `{ samples }` (ms).
 */
import { verify } from '@node-rs/argon2'
import { PASSWORD } from './seed.js'

const warmup = Number(process.argv[2])
const count = Number(process.argv[3])
const stored = process.env.ARGON2_HASH
if (!stored || !(warmup >= 0 && warmup <= 1000 && count > 0 && count <= 10_000))
  throw new Error('usage: ARGON2_HASH=… node argon2-verify.js <warmup ≤ 1000> <count ≤ 10000>')

const samples: number[] = []
for (let i = 0; i < warmup + count; i++) {
  const started = performance.now()
  if (!(await verify(stored, PASSWORD))) throw new Error('argon2 verify refused the seeded password')
  if (i >= warmup) samples.push(performance.now() - started)
}
process.stdout.write(`${JSON.stringify({ samples })}\n`)
