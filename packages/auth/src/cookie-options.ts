/**
 * The options of the cookie-borne credentials (docs/reference/credentials.md#cross-site-requests):
 * the origins whose pages may send them on unsafe methods, and the refresh cookie's `SameSite`,
 * `Secure` and `Path`. The cookie flags the library always sets are not options (`cookies.ts`).
 */
import { fail } from './option-checks.js'

export interface CookieOptions {
  /** Public origin of the app; foreign `Origin`s are refused for cookie-borne credentials. Default: the request's own origin. */
  publicUrl?: string
  /**
   * More origins whose front ends may send the cookie-borne credentials on unsafe methods
   * (`https://app.example.com`, `http://localhost:5173`), beside `publicUrl`'s (docs/reference/credentials.md#cross-site-requests).
   * Allow them in CORS too (`hono/cors` with `credentials: true`).
   */
  trustedOrigins?: readonly string[]
  /**
   * `SameSite` of the refresh cookie. Default `Strict`, right when the front end is on the same
   * site as the API (ports and subdomains of one site count as the same site). `None` lets a
   * front end on another site refresh; it needs `secureCookies` (https) and relies on the
   * origin check above for CSRF.
   */
  cookieSameSite?: 'Strict' | 'Lax' | 'None'
  /** `Secure` cookies with the `__Secure-` prefix. Default: on when `NODE_ENV=production` or `publicUrl` is https. */
  secureCookies?: boolean
  /** Path of the refresh cookie: where the auth routes are mounted. Default `/auth`. */
  cookiePath?: string
}

export interface ResolvedCookieOptions {
  publicOrigin: string | null
  /** `publicUrl`'s origin and `trustedOrigins`; `null` when neither is set (the request's own origin is trusted). */
  trustedOrigins: ReadonlySet<string> | null
  cookieSameSite: 'Strict' | 'Lax' | 'None'
  secureCookies: boolean
  cookiePath: string
}

export const resolveCookieOptions = (options: CookieOptions): ResolvedCookieOptions => {
  let publicOrigin: string | null = null
  if (options.publicUrl !== undefined) {
    try {
      publicOrigin = new URL(options.publicUrl).origin
    } catch {
      fail('publicUrl', 'must be an absolute URL such as https://app.example.com')
    }
  }
  const trusted = new Set<string>(publicOrigin ? [publicOrigin] : [])
  for (const [i, entry] of (options.trustedOrigins ?? []).entries()) {
    let origin: string | null = null
    try {
      origin = new URL(entry).origin
    } catch {}
    if (origin && origin !== 'null' && origin === entry.replace(/\/$/, '')) trusted.add(origin)
    else fail(`trustedOrigins[${i}]`, 'must be an origin such as https://app.example.com (scheme, host and port only)')
  }
  const cookieSameSite = options.cookieSameSite ?? 'Strict'
  if (!['Strict', 'Lax', 'None'].includes(cookieSameSite)) fail('cookieSameSite', "must be 'Strict', 'Lax' or 'None'")
  const secureCookies =
    options.secureCookies ?? (globalThis.process?.env?.NODE_ENV === 'production' || publicOrigin?.startsWith('https:') === true)
  // Browsers drop a SameSite=None cookie that is not Secure.
  if (cookieSameSite === 'None' && !secureCookies) fail('cookieSameSite', "'None' needs secureCookies (https)")
  const cookiePath = options.cookiePath ?? '/auth'
  if (!cookiePath.startsWith('/')) fail('cookiePath', 'must start with /')
  return { publicOrigin, trustedOrigins: trusted.size > 0 ? trusted : null, cookieSameSite, secureCookies, cookiePath }
}
