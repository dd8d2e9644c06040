/**
 * The refresh cookie: `HttpOnly; SameSite=Strict; Path=/auth`, `Max-Age` equal to the session's
 * remaining life, and `Secure` with the `__Secure-` name prefix where cookies are secure.
 */
import type { Context } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'
import { singleCookie } from './credentials.js'
import { opaqueToken, tokenHash } from './opaque-token.js'
import { secretsMac } from './web.js'

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
 * bits, new at every rotation, then its mark: see {@link refreshValues}) is what a refresh spends.
 * Key and value are stored as SHA-256 only: the row keeps the key's hash, the current value's
 * hash and the one it replaced. So every value the session ever issued is recognised (it carries
 * the key, and a mark only the server can make) without keeping each one, and a value made up by
 * someone who knows the session id, or even the key, is recognised as foreign. Values of the
 * older forms (`<session id>.<value>`, and a bare value from 0.1.0, found by its hash) still
 * rotate while they are current.
 */
export const refreshValue = (sessionId: string, key: string, value: string): string => `${sessionId}.${key}.${value}`

/** What a presented refresh value names: its session, the hash of its session key (when it has one), the hash of its value. */
export interface PresentedRefresh {
  sessionId: string | null
  /** The session key the value carries, and its SHA-256; `null` for the older forms. */
  key: string | null
  keyHash: string | null
  /** The value itself (the part a refresh spends), and its SHA-256. */
  value: string
  hash: string
}

export const parseRefreshValue = (presented: string): PresentedRefresh => {
  const keyed = KEYED.exec(presented)
  if (keyed) {
    const key = keyed[2] ?? ''
    const value = keyed[3] ?? ''
    return { sessionId: keyed[1] ?? null, key, keyHash: tokenHash(key), value, hash: tokenHash(value) }
  }
  const m = SESSION_PREFIX.exec(presented)
  const value = m ? (m[2] ?? '') : presented
  return { sessionId: m ? (m[1] ?? null) : null, key: null, keyHash: null, value, hash: tokenHash(value) }
}

/** 256 random bits, base64url. */
const RANDOM_LENGTH = 43
/** 128 bits of an HMAC-SHA-256, base64url. */
const MARK_LENGTH = 22

export type RefreshValues = ReturnType<typeof refreshValues>

/**
 * Refresh values the server can recognise as its own (docs/reference/credentials.md#reuse-detection):
 * 256 random bits followed by their mark, 128 bits of HMAC-SHA-256 over the session id, the
 * session key and the random part, under a key derived from the signing secret (the first one
 * marks, every listed one recognises). Someone who holds the session key, from any value the
 * session gave them, cannot make up another value it would recognise: only a value the session
 * really issued counts as reuse and ends it (docs/reference/credentials.md#reuse-detection).
 */
export const refreshValues = (secrets: readonly string[]) => {
  // Derived from the signing secrets by its own label, so a mark is never a token's MAC.
  const marks = secretsMac(secrets, 'latchkey refresh value v1', MARK_LENGTH)
  return {
    /** A new value for the session `sessionId` whose key is `key`. */
    next(sessionId: string, key: string): string {
      const random = opaqueToken()
      return random + marks.sign(`${sessionId}.${key}.${random}`)
    },
    /** Whether `value` was made by {@link next} for this session id and key, under any listed secret. */
    issued(sessionId: string, key: string, value: string): boolean {
      if (value.length !== RANDOM_LENGTH + MARK_LENGTH) return false
      return marks.verify(`${sessionId}.${key}.${value.slice(0, RANDOM_LENGTH)}`, value.slice(RANDOM_LENGTH))
    },
  }
}
