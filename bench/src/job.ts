/**
 * What the orchestrator asks the load generator to do, and what it answers. Both sides are
 * separate processes: the job travels as a JSON file, the result as the last stdout line.
 */
import type { LatencySummary } from './stats.js'

/** One kind of request. Its header sets and bodies are rotated, one step per request sent. */
export interface Variant {
  label: string
  method: 'GET' | 'POST'
  path: string
  /** Rotated per request (for example one bearer token per seeded user). At least one. */
  headers: Record<string, string>[]
  /** Rotated per request; JSON text. */
  bodies?: string[]
  /** A fresh `X-Forwarded-For` per request, so per-IP rate limits never interfere. */
  uniqueForwardedFor?: boolean
}

/** A group of connections; several streams of one job run at the same time. */
export interface Stream {
  name: string
  connections: number
  /** Variants are sent in turn: with one connection, A B A B … (interleaved samples). */
  variants: Variant[]
  /** Stop after this many seconds… */
  seconds: number
  /** …or after this many requests, whichever comes first. */
  maxRequests: number
  /**
   * Requests per second over all connections, sent at evenly spaced moments whether or not the
   * answers came (open loop); unset: as fast as answers come (closed loop).
   */
  overallRate?: number
  /** Seconds of load whose samples are thrown away before the measured run. */
  warmupSeconds: number
  /** Requests of warm-up, whichever of the two bounds comes first. */
  warmupMaxRequests?: number
}

export interface Job {
  /** `http://127.0.0.1:<port>`: loopback only. */
  base: string
  streams: Stream[]
  /** Distinguishes the forwarded addresses of one job from another's. */
  addressPrefix: number
}

export interface StreamResult {
  name: string
  seconds: number
  requests: number
  /** Answers during the warm-up (not in any other number here). */
  warmupRequests: number
  /** Answers per second over the measured run (every status). */
  rps: number
  statuses: Record<string, number>
  errors: number
  timeouts: number
  latency: LatencySummary
  /** Every sample in milliseconds by variant label, in arrival order (bounded by maxRequests). */
  samples: Record<string, number[]>
}

export interface JobResult {
  streams: StreamResult[]
  /** CPU time the load generator itself used, ms. */
  loadCpuMs: number
}

/** What the orchestrator adds around a job: where the CPU went while it ran. */
export interface MeasuredJob extends JobResult {
  /** CPU ms of the server process during the job, per answered request (all streams). */
  serverCpuMsPerRequest: number
  /** The same, of the server's main thread alone (the event loop); the rest went to its other threads. */
  serverMainThreadCpuMsPerRequest: number
  /** Share of the machine's CPU used by processes other than the server and the load generator (noise). */
  othersCpuShare: number
}

export const isLoopback = (base: string): boolean => {
  const { hostname } = new URL(base)
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]'
}
