/** Scenario 7: the in-memory limiter under a flood of distinct keys. */
import { join } from 'node:path'
import { type Ctx, DIST } from '../context.js'
import { runJson } from '../procs.js'
import type { Outcome } from './shared.js'

interface LimiterResult {
  count: number
  emailLength: number
  trackedKeys: number
  seconds: number
  rssGrowthMiB: number
  heapGrowthMiB: number
}

/**
 * The bound SECURITY.md states for the limiter's 100,000 keys: about 21 MB of heap, which its
 * flood test enforces at 32 MB; RSS grows by about twice the heap (V8's reserve).
 */
export const LIMITER_HEAP_BOUND_MIB = 32
export const LIMITER_RSS_BOUND_MIB = 2 * LIMITER_HEAP_BOUND_MIB

/** Scenario 7: heap and RSS growth of the in-memory limiter after 10^6 distinct keys. */
export const limiterMemory = async (ctx: Ctx): Promise<Outcome> => {
  ctx.progress('scenario 7: limiter memory after 10^6 distinct keys')
  const measure = (count: number, emailLength: number) =>
    runJson<LimiterResult>({
      script: join(DIST, 'limiter-memory.js'),
      args: [String(count), String(emailLength)],
      nodeArgs: ['--expose-gc'],
      cores: ctx.pinning.load,
      timeoutMs: 180_000,
    })
  // Short emails; the longest valid ones; and the longest a 64 KiB body carries (counted too,
  // valid or not), enough of them to fill the table.
  const typical = await measure(1_000_000, 24)
  const longest = await measure(1_000_000, 254)
  // Unbounded, 20,000 such keys alone would hold ~1.2 GB; the full run offers enough to fill the table.
  const hostileCount = ctx.quick ? 20_000 : 200_000
  const hostile = await measure(hostileCount, 65_000)
  const all = [typical, longest, hostile]
  const heap = Math.max(...all.map((r) => r.heapGrowthMiB))
  const rss = Math.max(...all.map((r) => r.rssGrowthMiB))
  const mib = (r: LimiterResult) => `${r.heapGrowthMiB.toFixed(1)}/${r.rssGrowthMiB.toFixed(0)}`
  return {
    rows: [
      {
        id: '7',
        scenario:
          `Limiter heap/RSS growth (MiB) after 10^6 distinct keys, ${typical.trackedKeys.toLocaleString('en-US')} kept: ` +
          `24-char emails, 254-char, 65,000-char (${hostileCount.toLocaleString('en-US')} keys)`,
        measured: `${mib(typical)}, ${mib(longest)}, ${mib(hostile)}`,
        baseline: `${LIMITER_HEAP_BOUND_MIB}/${LIMITER_RSS_BOUND_MIB} (SECURITY.md)`,
        ratio: heap / LIMITER_HEAP_BOUND_MIB,
        target: '≤ 1',
        pass: heap <= LIMITER_HEAP_BOUND_MIB && rss <= LIMITER_RSS_BOUND_MIB,
        note: `10^6 hits in ${typical.seconds.toFixed(1)} s (${((typical.seconds / typical.count) * 1e6).toFixed(1)} µs per hit)`,
      },
    ],
    raw: { typical, longest, hostile },
  }
}
