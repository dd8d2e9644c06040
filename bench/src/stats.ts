/** Order statistics over latency samples (milliseconds). Pure functions, no I/O. */

/** The `p`-th percentile (0..100) of `sorted`, nearest-rank. `NaN` when empty. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN
}

export const sortedCopy = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b)

export const median = (xs: readonly number[]): number => {
  const s = sortedCopy(xs)
  if (s.length === 0) return Number.NaN
  const mid = s.length >> 1
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

/** Drops `fraction` of the samples at each end (outliers: GC pauses, scheduler hiccups). */
export const trim = (xs: readonly number[], fraction: number): number[] => {
  const s = sortedCopy(xs)
  const cut = Math.floor(s.length * fraction)
  return s.slice(cut, s.length - cut)
}

export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)

export interface LatencySummary {
  count: number
  p50: number
  p90: number
  p99: number
  max: number
}

export const summarize = (samples: readonly number[]): LatencySummary => {
  const s = sortedCopy(samples)
  return { count: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s.at(-1) ?? Number.NaN }
}
