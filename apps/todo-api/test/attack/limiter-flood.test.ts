/**
 * The limiter under flood (docs/reference/limits.md#memory-and-flooding: memory stays bounded however many distinct keys
 * arrive, and a flood of new keys never frees an already-limited key). The flood runs in its
 * own process with `--expose-gc` (limiter-flood.child.ts) so the heap it measures after a full
 * collection is the limiter's alone.
 *
 * Bound, from the measurements in SECURITY.md: the default store (100,000 keys) holds about
 * 21 MB of heap whatever the number of keys offered; this test allows 32 MB and requires the
 * heap to stay flat (within 4 MB) from 100,000 to 1,000,000 keys of each kind.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { run } from '../support.js'
import type { FloodReport } from './limiter-flood.child.js'

const CHILD = fileURLToPath(new URL('./limiter-flood.child.ts', import.meta.url))

describe('the limiter under a flood of distinct keys', () => {
  it('stays within its memory bound, forgets no count, and lets one address refuse nobody else', async () => {
    const child = await run(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], { timeoutMs: 150_000 })
    expect(child.stderr, child.stdout).toBe('')
    expect(child.code).toBe(0)
    const report = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as FloodReport
    console.log(
      `limiter flood: ${report.seconds.toFixed(1)} s; heap MB by keys: ${report.heapMb
        .map((s) => `${s.keys / 1000}k=${s.heapMb.toFixed(1)} (rss +${s.rssMb.toFixed(0)}, ${Math.round(s.ms)} ms)`)
        .join(', ')}`,
    )

    const heaps = report.heapMb.map((s) => s.heapMb)
    expect(report.heapMb.map((s) => s.keys)).toEqual([
      100_000, 200_000, 300_000, 400_000, 500_000, 600_000, 700_000, 800_000, 900_000, 1_000_000,
    ])
    expect(Math.max(...heaps), 'heap held by the limiter (MB)').toBeLessThan(32)
    expect(Math.max(...heaps) - Math.min(...heaps), 'heap growth from 10^5 to 10^6 keys (MB)').toBeLessThan(4)
    expect(report.size).toBe(100_000)
    // 9 of 10 and 99 of 100 before 10^6 other keys; after them, exactly one more attempt each.
    expect(report.victim).toEqual({ email: [true, false], ip: [true, false] })

    const r = report.route
    // a. One address: its first 100 requests count, the other 100,000 are refused and count nothing,
    //    so the victim still has exactly one guess left (the review had found 10 more).
    expect(r.oneAddressFlood).toEqual({ 202: 100, 429: 100_000 })
    expect(r.victimAfterOneAddress).toEqual([401, 429])
    // b. That address cannot make the limits refuse anyone else.
    expect(r.freshSignups).toEqual({ 201: 40 })
    expect(r.freshForgot).toEqual({ 202: 40 })
    expect(r.ownerLogin).toBe(200)
    // c. 5,000 addresses overflow the 500-key table into the sketch; nobody's count is forgotten.
    expect(r.manyAddressFlood).toEqual({ 202: 5_000 })
    expect(r.victimAfterMany).toEqual([401, 429])
  }, 180_000)
})
