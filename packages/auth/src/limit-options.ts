/**
 * The options of the rate limits (docs/reference/limits.md): how much each key may do, and who
 * the client is, the address every per-IP limit counts (`trustProxy`, `getConnInfo`). The keys
 * themselves are `limits.ts`'s; counting is `rate-limit.ts`'s.
 */
import { type ClientAddress, clientAddress, type GetConnInfo } from './credentials.js'
import { fail, positive, positiveInteger } from './option-checks.js'
import type { Limit, RateLimitStore } from './rate-limit.js'

export interface LimitOptions {
  /** Per-IP and per-email limits of signup, login, forgot-password and reset-password. */
  rateLimit?: {
    /** Per client address, on each limited endpoint. Default 100 per 15 minutes. */
    ip?: Limit
    /** Per canonical email on signup, login, forgot- and reset-password. Default 10 per 15 minutes. */
    email?: Limit
    /**
     * A request keyed by an email (login, forgot-password, email-sign-in) from a browser the
     * account has signed in from (its device cookie): counted per that device instead of per
     * email, so a flood from elsewhere never refuses it. Default 10 per 15 minutes.
     */
    device?: Limit
    /**
     * Per signed-in user on each endpoint that verifies a password or a code (change-password,
     * two-factor setup, …), and per account on `POST /two-factor/verify`. Default 10 per 15 minutes.
     */
    user?: Limit
    /**
     * `POST /refresh`: per session (default 300 per 15 minutes: a page load every 3 s) and per
     * address (default 1,000 per 15 minutes). A refresh value cannot be guessed; these stop loops.
     */
    refresh?: { session?: Limit; ip?: Limit }
    /** IPv6 clients count per this many leading bits of their address. Default 64 (one /64). */
    ipv6Prefix?: number
    store?: RateLimitStore
  }
  /** `true` when behind exactly one trusted proxy: the client IP is the right-most `X-Forwarded-For` entry. */
  trustProxy?: boolean
  /**
   * The client address on a runtime other than Node: Hono's `getConnInfo` of its adapter
   * (`import { getConnInfo } from 'hono/bun'`, `'hono/deno'`, `'hono/cloudflare-workers'`). On
   * Node (`@hono/node-server`) the socket is read without it. On Bun, Deno and Workers
   * `createAuth` refuses to start with neither this nor `trustProxy`: every client would share
   * one rate-limit bucket, and one client could lock out everyone.
   */
  getConnInfo?: GetConnInfo
}

export interface ResolvedLimitOptions {
  ipLimit: Limit
  emailLimit: Limit
  deviceLimit: Limit
  userLimit: Limit
  refreshSessionLimit: Limit
  refreshIpLimit: Limit
  ipv6Prefix: number
  trustProxy: boolean
  /** The client address of a request: `X-Forwarded-For` (trustProxy), `getConnInfo`, or Node's socket. */
  clientAddress: ClientAddress
}

/** The runtime, when it is one whose client address the library cannot read by itself. */
const nonNodeRuntime = (): { name: string; adapter: string } | null => {
  const g = globalThis as { Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } }
  if (g.Bun !== undefined) return { name: 'Bun', adapter: 'hono/bun' }
  if (g.Deno !== undefined) return { name: 'Deno', adapter: 'hono/deno' }
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return { name: 'Cloudflare Workers', adapter: 'hono/cloudflare-workers' }
  return null
}

const ipv6Prefix = (value: number | undefined): number => {
  if (value === undefined) return 64
  if (!Number.isInteger(value) || value < 1 || value > 128) fail('rateLimit.ipv6Prefix', 'must be an integer from 1 to 128')
  return value
}

const limit = (option: string, value: Limit | undefined, fallback: Limit): Limit => {
  if (value === undefined) return fallback
  return {
    max: positiveInteger(`${option}.max`, value.max, fallback.max),
    windowSeconds: positive(`${option}.windowSeconds`, value.windowSeconds, fallback.windowSeconds),
  }
}

export const resolveLimitOptions = (options: LimitOptions): ResolvedLimitOptions => {
  if (options.getConnInfo !== undefined && typeof options.getConnInfo !== 'function')
    fail('getConnInfo', "must be a function, Hono's getConnInfo of your runtime's adapter")
  const runtime = nonNodeRuntime()
  if (runtime && !options.trustProxy && !options.getConnInfo)
    fail(
      'getConnInfo',
      `is required on ${runtime.name}: without it the client address is unknown and every client shares one rate-limit bucket. Pass \`getConnInfo\` from '${runtime.adapter}' (or trustProxy: true behind exactly one proxy)`,
    )
  const rateLimit = options.rateLimit
  return {
    ipLimit: limit('rateLimit.ip', rateLimit?.ip, { max: 100, windowSeconds: 15 * 60 }),
    emailLimit: limit('rateLimit.email', rateLimit?.email, { max: 10, windowSeconds: 15 * 60 }),
    deviceLimit: limit('rateLimit.device', rateLimit?.device, { max: 10, windowSeconds: 15 * 60 }),
    userLimit: limit('rateLimit.user', rateLimit?.user, { max: 10, windowSeconds: 15 * 60 }),
    refreshSessionLimit: limit('rateLimit.refresh.session', rateLimit?.refresh?.session, { max: 300, windowSeconds: 15 * 60 }),
    refreshIpLimit: limit('rateLimit.refresh.ip', rateLimit?.refresh?.ip, { max: 1000, windowSeconds: 15 * 60 }),
    ipv6Prefix: ipv6Prefix(rateLimit?.ipv6Prefix),
    trustProxy: options.trustProxy ?? false,
    clientAddress: clientAddress(options.trustProxy ?? false, options.getConnInfo),
  }
}
