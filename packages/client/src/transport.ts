/**
 * The wire: URLs under the base URL (the access token goes to its origin only), one request with
 * a JSON body and a bearer token, and in Node the refresh cookie, kept here because no browser
 * keeps it. Knows nothing of sessions: which token to send is the caller's.
 */
import { networkError } from './errors.js'

const REFRESH_COOKIE = /^(?:__Secure-)?refresh_token=([^;]*)/

export interface TransportOptions {
  baseUrl: string
  authPath: string
  fetch: typeof fetch
  /** Keep the refresh cookie here (Node) instead of leaving it to a browser. */
  cookieJar: boolean
}

export type Transport = ReturnType<typeof createTransport>

export const createTransport = (options: TransportOptions) => {
  const base = options.baseUrl.replace(/\/+$/, '')
  const origin = new URL(base).origin
  const { authPath, cookieJar: jar } = options
  /** The refresh cookie (`name=value`), when this client keeps it. */
  let cookie: string | null = null
  /** The path the server gives the refresh cookie: `<baseUrl's path><authPath>`. */
  const cookiePath = new URL(`${base}${authPath}`).pathname.replace(/\/+$/, '')
  /**
   * Whether a browser would send a cookie of {@link cookiePath} to `url` (RFC 6265 §5.1.4, on the
   * path as the request will carry it: `/auth/../todos` is `/todos`, `/authors` is not `/auth`).
   */
  const underCookiePath = ({ pathname }: URL): boolean => pathname === cookiePath || pathname.startsWith(`${cookiePath}/`)

  /**
   * The URL of `path` under the base URL. A path must start with `/`: glued to the base, any
   * other (`@evil.example/x`, `.evil.example/x`, a full URL) could name another host, and the
   * access token goes to `baseUrl`'s origin only.
   */
  const target = (path: string): { url: string; parsed: URL } => {
    const url = `${base}${path}`
    const parsed = typeof path === 'string' && path.startsWith('/') ? new URL(url) : null
    if (parsed?.origin !== origin)
      throw new TypeError(
        `auth.fetch: the path must start with "/" and stay on ${origin} (got ${JSON.stringify(String(path)).slice(0, 80)})`,
      )
    return { url, parsed }
  }
  const urlOf = (path: string): string => target(path).url

  /** Keeps the refresh cookie of an auth answer (Node), or forgets it when the server clears it. */
  const remember = (response: Response) => {
    if (!jar) return
    for (const line of response.headers.getSetCookie?.() ?? []) {
      const match = REFRESH_COOKIE.exec(line)
      if (!match) continue
      cookie = match[1] && !/Max-Age=0/i.test(line) ? (line.split(';')[0] ?? null) : null
    }
  }

  return {
    origin,
    authPath,
    /** `<baseUrl><authPath>`: names this API to the other tabs. */
    api: `${base}${authPath}`,
    urlOf,
    /** Whether a refresh may find a cookie: always in a browser (it is HttpOnly), in Node when the jar has one. */
    mayHaveCookie: () => !jar || cookie !== null,
    /** The session ended: its cookie is not to be sent again. */
    forgetCookie: () => {
      cookie = null
    },
    /**
     * One request to `path` under the base URL: JSON `body`, the bearer `token`, and on the auth
     * routes the refresh cookie (browser: `include`; Node: the jar).
     */
    async send(path: string, method: string, body: unknown, token: string | null, init: RequestInit = {}): Promise<Response> {
      const { url, parsed } = target(path)
      const headers = new Headers(init.headers)
      if (body !== undefined) headers.set('Content-Type', 'application/json')
      if (token) headers.set('Authorization', `Bearer ${token}`)
      if (jar && cookie && underCookiePath(parsed)) headers.set('Cookie', cookie)
      const response = await options
        .fetch(url, {
          ...init,
          method,
          headers,
          credentials: 'include',
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
        .catch((err: unknown) => {
          // fetch's own failure (no answer); an abort (DOMException) stays what it is.
          throw err instanceof TypeError ? networkError(url, err) : err
        })
      remember(response)
      return response
    },
  }
}
