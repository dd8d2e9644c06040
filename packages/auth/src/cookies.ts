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

const SESSION_PREFIX = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(.+)$/

/**
 * The refresh cookie's value is `<session id>.<random value>`: the session id finds the one row
 * that holds the session's current value and the one before it, so any older value of a live
 * session is recognised as reuse without keeping every value ever issued. Only the random part
 * is stored, as its SHA-256. A value without a session id (issued before 0.2) is looked up by
 * its hash.
 */
export const refreshValue = (sessionId: string, random: string): string => `${sessionId}.${random}`

/** The session a presented refresh value names (`null` when it names none) and the hash of its random part. */
export const parseRefreshValue = (presented: string): { sessionId: string | null; hash: string } => {
  const m = SESSION_PREFIX.exec(presented)
  return m ? { sessionId: m[1] ?? null, hash: tokenHash(m[2] ?? '') } : { sessionId: null, hash: tokenHash(presented) }
}
