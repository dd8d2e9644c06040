/**
 * Where a credential comes from: the `Authorization` header, then the `token` cookie, then the
 * `access_token` query parameter. The first one PRESENT decides, valid or not. Also: the client
 * IP and the same-origin check that cookie-borne credentials need on unsafe methods.
 */
import type { Context } from 'hono'
import { AuthError } from './errors.js'

export type CredentialSource = 'header' | 'cookie' | 'query'

/** `token: null` means a credential is present but malformed (another scheme, duplicates). */
export type Credential = { source: CredentialSource; token: string | null } | null

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

/** Values of every cookie named `name` in the request, in order. Duplicates are an attack signal. */
export const cookieValues = (c: Context, name: string): string[] => {
  const header = c.req.header('cookie')
  if (!header) return []
  const values: string[] = []
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=')
    if (eq !== -1 && pair.slice(0, eq).trim() === name) values.push(pair.slice(eq + 1).trim())
  }
  return values
}

/** The one cookie named `name`: `undefined` when absent, `null` when repeated or empty. */
export const singleCookie = (c: Context, name: string): string | null | undefined => {
  const values = cookieValues(c, name)
  if (values.length === 0) return undefined
  if (values.length > 1 || !values[0]) return null
  try {
    return decodeURIComponent(values[0])
  } catch {
    return null
  }
}

export const readCredential = (c: Context): Credential => {
  const authorization = c.req.header('authorization')
  if (authorization !== undefined) return { source: 'header', token: BEARER.exec(authorization)?.[1] ?? null }
  const cookie = singleCookie(c, 'token')
  if (cookie !== undefined) return { source: 'cookie', token: cookie }
  const query = c.req.queries('access_token')
  if (query !== undefined) return { source: 'query', token: query.length === 1 && query[0] ? query[0] : null }
  return null
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * CSRF defence for cookie-borne credentials (docs/reference/credentials.md#cross-site-requests): an unsafe request is refused
 * unless its `Origin` is absent or trusted, and one the browser marks `Sec-Fetch-Site:
 * cross-site` unless its `Origin` is trusted. `trusted`: `publicUrl`'s origin and
 * `trustedOrigins`; `null` (neither set) trusts the request's own origin only.
 */
export const isCrossSiteUnsafe = (c: Context, trusted: ReadonlySet<string> | null): boolean => {
  if (!UNSAFE.has(c.req.method)) return false
  const origin = c.req.header('origin')
  const isTrusted = origin !== undefined && (trusted ? trusted.has(origin) : origin === new URL(c.req.url).origin)
  if (c.req.header('sec-fetch-site')?.toLowerCase() === 'cross-site') return !isTrusted
  return origin !== undefined && !isTrusted
}

/**
 * The 403 for {@link isCrossSiteUnsafe}. It names the options to set, because the usual cause is
 * a front end on another origin than `publicUrl` says, not an attack.
 */
export const crossSiteRefused = (c: Context, trusted: ReadonlySet<string> | null): AuthError => {
  const expected = trusted ? [...trusted].join(', ') || 'none' : new URL(c.req.url).origin
  const origin = c.req.header('origin')
  const why = origin === undefined ? 'the browser marked it cross-site' : `its Origin is not one of ${expected}`
  return new AuthError('cross_origin', {
    detail: `Cookie credentials are not accepted from another site (${why}). If this is your own front end, add its origin to the trustedOrigins option of createAuth.`,
  })
}

interface NodeEnv {
  incoming?: { socket?: { remoteAddress?: string } }
}

/** Hono's `getConnInfo` of a runtime adapter (`hono/bun`, `hono/deno`, `hono/cloudflare-workers`, `@hono/node-server/conninfo`). */
export type GetConnInfo = (c: Context) => { remote: { address?: string | undefined } }

/** The client address of a request, `'unknown'` when it cannot be known. */
export type ClientAddress = (c: Context) => string

/**
 * Where the client IP comes from: with `trustProxy`, the right-most `X-Forwarded-For` entry, the
 * one the single trusted proxy appended (left entries are the client's to forge and never read);
 * otherwise the runtime adapter's `getConnInfo`, or without one the Node adapter's socket.
 */
export const clientAddress =
  (trustProxy: boolean, getConnInfo: GetConnInfo | undefined): ClientAddress =>
  (c) => {
    if (trustProxy) {
      const forwarded = c.req.header('x-forwarded-for')
      const last = forwarded?.split(',').pop()?.trim()
      if (last) return last
    }
    const address = getConnInfo
      ? safely(() => getConnInfo(c).remote.address)
      : (c.env as NodeEnv | undefined)?.incoming?.socket?.remoteAddress
    return address || 'unknown'
  }

/** An adapter's `getConnInfo` throws when the request did not come through it (tests, `app.request()`). */
const safely = (read: () => string | undefined): string | undefined => {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** Longest `User-Agent` kept with a session or an event (docs/reference/lifecycle.md#sessions). */
const USER_AGENT_MAX = 256

/**
 * What a session and an event record of the request: the client address (`null` when unknown)
 * and the `User-Agent`, cut to its first 256 characters (`null` when absent).
 */
export const requestFacts = (c: Context, address: ClientAddress): { ip: string | null; userAgent: string | null } => {
  const ip = address(c)
  const agent = c.req.header('user-agent')
  return {
    ip: ip === 'unknown' ? null : ip,
    userAgent: agent === undefined ? null : [...agent].slice(0, USER_AGENT_MAX).join(''),
  }
}

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i
const TRAILING_V4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** The eight 16-bit groups of an IPv6 address, or `null` when it is not one. */
const ipv6Groups = (ip: string): number[] | null => {
  let text = (ip.split('%')[0] ?? '').toLowerCase()
  const v4 = TRAILING_V4.exec(text)
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const part = (s: string | undefined) => (s ? s.split(':') : [])
  const head = part(halves[0])
  const tail = part(halves[1])
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null
  return groups.map((g) => Number.parseInt(g, 16))
}

/**
 * The address a rate limit counts: an IPv4 address as it is (also when it arrives IPv4-mapped,
 * `::ffff:a.b.c.d`), and an IPv6 address as its first `v6Prefix` bits (default 64), since one
 * host usually holds a whole /64 and could otherwise count as 2^64 clients.
 */
export const rateLimitAddress = (ip: string, v6Prefix: number): string => {
  const mapped = MAPPED_V4.exec(ip)
  if (mapped) return mapped[1] ?? ip
  if (!ip.includes(':')) return ip
  const groups = ipv6Groups(ip)
  if (!groups) return ip
  const bits = groups.map((g, i) => {
    const keep = Math.max(0, Math.min(16, v6Prefix - i * 16))
    return keep === 0 ? 0 : g & ~((1 << (16 - keep)) - 1) & 0xffff
  })
  return `${bits.map((g) => g.toString(16)).join(':')}/${v6Prefix}`
}
