/**
 * The refresh cookie: `HttpOnly; SameSite=Strict; Path=/auth`, `Max-Age` equal to the session's
 * remaining life, and `Secure` with the `__Secure-` name prefix where cookies are secure.
 */
import type { Context } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'
import { singleCookie } from './credentials.js'
import { tokenHash } from './opaque-token.js'

const NAME = 'refresh_token'

export interface RefreshCookie {
  /** The cookie's name as the browser sends it. */
  name: string
  /** The presented value: `undefined` when absent, `null` when malformed or repeated. */
  read(c: Context): string | null | undefined
  set(c: Context, value: string, maxAgeSeconds: number): void
  clear(c: Context): void
}

export const refreshCookie = (secure: boolean, path: string, sameSite: 'Strict' | 'Lax' | 'None' = 'Strict'): RefreshCookie => {
  const base: CookieOptions = secure
    ? { path, httpOnly: true, sameSite, secure: true, prefix: 'secure' }
    : { path, httpOnly: true, sameSite }
  return {
    name: secure ? `__Secure-${NAME}` : NAME,
    read(c) {
      return singleCookie(c, this.name)
    },
    set: (c, value, maxAge) => setCookie(c, NAME, value, { ...base, maxAge: Math.max(0, Math.floor(maxAge)) }),
    clear: (c) => {
      deleteCookie(c, NAME, base)
    },
  }
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
/** `<session id>.<session key>.<value>`: the form issued since the session key (0.2). */
const KEYED = new RegExp(`^(${UUID})\\.([A-Za-z0-9_-]{43})\\.(.+)$`)
/** `<session id>.<value>`: the form issued before the session key, still read while it is current. */
const SESSION_PREFIX = new RegExp(`^(${UUID})\\.(.+)$`)

/**
 * The refresh cookie's value is `<session id>.<session key>.<value>`. The session id finds the
 * one row that holds the session; the session key (256 random bits, the same for every value of
 * one session) proves that its holder was given a value by this session; the value (256 random
 * bits, new at every rotation) is what a refresh spends. Both are stored as SHA-256 only: the
 * row keeps the key's hash, the current value's hash and the one it replaced. So every value the
 * session ever issued is recognised (it carries the key) without keeping each one, and a value
 * made up by someone who only knows the session id is recognised as foreign. Values of the older
 * forms (`<session id>.<value>`, and a bare value from 0.1.0, found by its hash) still rotate
 * while they are current.
 */
export const refreshValue = (sessionId: string, key: string, random: string): string => `${sessionId}.${key}.${random}`

/** What a presented refresh value names: its session, the hash of its session key (when it has one), the hash of its value. */
export interface PresentedRefresh {
  sessionId: string | null
  /** The session key the value carries, and its SHA-256; `null` for the older forms. */
  key: string | null
  keyHash: string | null
  /** SHA-256 of the value (the part a refresh spends). */
  hash: string
}

export const parseRefreshValue = (presented: string): PresentedRefresh => {
  const keyed = KEYED.exec(presented)
  if (keyed) {
    const key = keyed[2] ?? ''
    return { sessionId: keyed[1] ?? null, key, keyHash: tokenHash(key), hash: tokenHash(keyed[3] ?? '') }
  }
  const m = SESSION_PREFIX.exec(presented)
  return m
    ? { sessionId: m[1] ?? null, key: null, keyHash: null, hash: tokenHash(m[2] ?? '') }
    : { sessionId: null, key: null, keyHash: null, hash: tokenHash(presented) }
}
