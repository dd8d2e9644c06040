/**
 * The refresh cookie: `HttpOnly; SameSite=Strict; Path=/auth`, `Max-Age` equal to the session's
 * remaining life, and `Secure` with the `__Secure-` name prefix where cookies are secure.
 */
import type { Context } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'
import { singleCookie } from './credentials.js'

const NAME = 'refresh_token'

export interface RefreshCookie {
  /** The cookie's name as the browser sends it. */
  name: string
  /** The presented value: `undefined` when absent, `null` when malformed or repeated. */
  read(c: Context): string | null | undefined
  set(c: Context, value: string, maxAgeSeconds: number): void
  clear(c: Context): void
}

export const refreshCookie = (secure: boolean, path: string): RefreshCookie => {
  const base: CookieOptions = secure
    ? { path, httpOnly: true, sameSite: 'Strict', secure: true, prefix: 'secure' }
    : { path, httpOnly: true, sameSite: 'Strict' }
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
