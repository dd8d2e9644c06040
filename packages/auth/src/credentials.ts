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
 * An `Origin` header as the origin it names, serialised as `URL#origin` does (`HTTP://Example.COM:80`
 * is `http://example.com`), or `null` for `null` and anything that is not a bare origin.
 */
const canonicalOrigin = (header: string): string | null => {
  let url: URL
  try {
    url = new URL(header)
  } catch {
    return null
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !header.endsWith('/')
  return bare && url.origin !== 'null' ? url.origin : null
}

/**
 * CSRF defence for cookie-borne credentials (docs/reference/credentials.md#cross-site-requests): an unsafe request is refused
 * unless its `Origin` is absent or trusted, and one the browser marks `Sec-Fetch-Site:
 * cross-site` unless its `Origin` is trusted. `trusted`: `publicUrl`'s origin and
 * `trustedOrigins`; `null` (neither set) trusts the request's own origin only.
 */
export const isCrossSiteUnsafe = (c: Context, trusted: ReadonlySet<string> | null): boolean => {
  if (!UNSAFE.has(c.req.method)) return false
  const header = c.req.header('origin')
  const origin = header === undefined ? undefined : canonicalOrigin(header)
  const isTrusted = origin != null && (trusted ? trusted.has(origin) : origin === new URL(c.req.url).origin)
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
 * otherwise, or when that entry is not an IP address, the runtime adapter's `getConnInfo`, or
 * without one the Node adapter's socket. Either way the answer is an address in its one written
 * form ({@link canonicalAddress}: no port, IPv4 inside IPv6 as IPv4), or `'unknown'`.
 */
export const clientAddress =
  (trustProxy: boolean, getConnInfo: GetConnInfo | undefined): ClientAddress =>
  (c) => {
    if (trustProxy) {
      const forwarded = canonicalAddress(c.req.header('x-forwarded-for')?.split(',').pop() ?? '')
      if (forwarded) return forwarded
    }
    const address = getConnInfo
      ? safely(() => getConnInfo(c).remote.address)
      : (c.env as NodeEnv | undefined)?.incoming?.socket?.remoteAddress
    return canonicalAddress(address ?? '') ?? 'unknown'
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

const IPV4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
/** An IPv6 address written as a proxy may write it: in brackets, with a port after them. */
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/
/** An IPv4 address with a port. */
const V4_PORT = /^([\d.]+):\d{1,5}$/
/** Longest text of an IPv6 address (`ffff:…:255.255.255.255`); nothing longer is ever an address. */
const MAX_ADDRESS = 45

/** The eight 16-bit groups of an IPv6 address (zone already removed), or `null` when it is not one. */
const ipv6Groups = (ip: string): number[] | null => {
  let text = ip.toLowerCase()
  const v4 = /[^:]*$/.exec(text)?.[0] ?? ''
  if (v4.includes('.')) {
    const octets = IPV4.exec(v4)?.slice(1).map(Number)
    if (!octets) return null
    const [a, b, c, d] = octets as [number, number, number, number]
    text = `${text.slice(0, text.length - v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
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

/** The IPv4 address inside an IPv6 one, when the IPv6 address only carries it: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`, RFC 6052). */
const embeddedIpv4 = (g: number[]): string | null => {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  const mapped = zeros(0, 5) && g[5] === 0xffff
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4 ones.
  const compatible = zeros(0, 6) && (g[6] as number) !== 0
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)
  if (!mapped && !compatible && !nat64) return null
  const [hi, lo] = [g[6] as number, g[7] as number]
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
}

/** RFC 5952 text of eight groups: lower case, the longest run of two or more zero groups as `::`. */
const ipv6Text = (g: number[]): string => {
  let best = { at: -1, length: 1 }
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && g[j] === 0) j++
    if (j - i > best.length) best = { at: i, length: j - i }
    i = j === i ? i + 1 : j
  }
  const hex = g.map((x) => x.toString(16))
  if (best.at === -1) return hex.join(':')
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`
}

/**
 * `text` as an IP address in its one written form, or `null` when it is not one: a port
 * (`1.2.3.4:5678`, `[2001:db8::1]:443`), brackets and a zone (`%eth0`) removed; an IPv4 address
 * carried in IPv6 (mapped, compatible, NAT64) as that IPv4 address; IPv6 as RFC 5952 writes it.
 * So one client is one address however a proxy writes it, and what is stored is never longer
 * than an IPv6 address.
 */
export const canonicalAddress = (text: string): string | null => {
  let ip = text.trim()
  if (ip.length > MAX_ADDRESS + 8) return null
  ip = BRACKETED.exec(ip)?.[1] ?? V4_PORT.exec(ip)?.[1] ?? ip
  if (IPV4.test(ip)) return ip
  const groups = ip.includes(':') ? ipv6Groups(ip.split('%')[0] ?? '') : null
  if (!groups) return null
  return embeddedIpv4(groups) ?? ipv6Text(groups)
}

/**
 * The address a rate limit counts: an IPv4 address as it is (also when it arrives inside IPv6:
 * mapped, compatible or NAT64), and an IPv6 address as its first `v6Prefix` bits (default 64),
 * since one host usually holds a whole /64 and could otherwise count as 2^64 clients.
 */
export const rateLimitAddress = (ip: string, v6Prefix: number): string => {
  const canonical = canonicalAddress(ip)
  if (canonical === null || !canonical.includes(':')) return canonical ?? ip
  const groups = ipv6Groups(canonical) as number[]
  const bits = groups.map((g, i) => {
    const keep = Math.max(0, Math.min(16, v6Prefix - i * 16))
    return keep === 0 ? 0 : g & ~((1 << (16 - keep)) - 1) & 0xffff
  })
  return `${bits.map((g) => g.toString(16)).join(':')}/${v6Prefix}`
}
