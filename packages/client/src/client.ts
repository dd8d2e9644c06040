/**
 * The client side of @latchkey/auth's sessions: the access token lives in memory only, is
 * refreshed ahead of its expiry and once after a 401 `invalid_token`, and concurrent callers
 * share one refresh (a second refresh with the same cookie would be a race at best and a reuse
 * at worst). In a browser the refresh cookie is the browser's (HttpOnly, `credentials:
 * 'include'`); in Node the client keeps it itself.
 */
import { errorFrom } from './errors.js'

export interface User {
  id: string
  name: string
  email: string
  emailVerified: boolean
  createdAt: string
}

export interface SessionView {
  id: string
  createdAt: string
  lastUsedAt: string
  expiresAt: string
  userAgent: string | null
  ip: string | null
  current: boolean
}

/** What a sign-in answered: signed in, or (an account with a second factor) a challenge to answer. */
export type SignInResult = { status: 'signed-in'; user: User } | { status: 'two-factor'; challenge: Record<string, unknown> }

/** The state a UI renders: who is signed in, if anyone. */
export interface AuthState {
  user: User | null
}

export interface AuthClientOptions {
  /** The API's base URL, e.g. `https://api.example.com` (the auth routes are under `authPath`). */
  baseUrl: string
  /** Where the auth routes are mounted. Default `/auth`. */
  authPath?: string
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch
  /** Refresh this many seconds before the access token expires. Default 30. */
  refreshSkewSeconds?: number
  /**
   * Keep the refresh cookie in the client (Node, tests) instead of leaving it to a browser.
   * Default: on where there is no `document`.
   */
  cookieJar?: boolean
  /** The clock that decides when a token is about to expire (epoch ms), for tests. Default `Date.now`. */
  now?: () => number
}

export type AuthClient = ReturnType<typeof createAuthClient>

const REFRESH_COOKIE = /^(?:__Secure-)?refresh_token=([^;]*)/

/**
 * @example
 * const auth = createAuthClient({ baseUrl: 'https://api.example.com' })
 * await auth.signIn({ email, password })
 * const todos = await (await auth.fetch('/todos')).json()
 */
export const createAuthClient = (options: AuthClientOptions) => {
  const base = options.baseUrl.replace(/\/+$/, '')
  const authPath = options.authPath ?? '/auth'
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init))
  const skewSetting = (options.refreshSkewSeconds ?? 30) * 1000
  const now = options.now ?? Date.now
  const jar = options.cookieJar ?? typeof (globalThis as { document?: unknown }).document === 'undefined'

  let accessToken: string | null = null
  let expiresAt = 0
  let user: User | null = null
  let cookie: string | null = null
  let refreshing: Promise<boolean> | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  const listeners = new Set<() => void>()
  let state: AuthState = { user: null }

  const publish = () => {
    if (JSON.stringify(state.user) === JSON.stringify(user)) return
    state = { user }
    for (const listener of listeners) listener()
  }

  /** Keeps the refresh cookie of an auth answer (Node), or forgets it when the server clears it. */
  const remember = (response: Response) => {
    if (!jar) return
    for (const line of response.headers.getSetCookie?.() ?? []) {
      const match = REFRESH_COOKIE.exec(line)
      if (!match) continue
      cookie = match[1] && !/Max-Age=0/i.test(line) ? (line.split(';')[0] ?? null) : null
    }
  }

  const signedOut = () => {
    accessToken = null
    expiresAt = 0
    user = null
    if (timer) clearTimeout(timer)
    publish()
  }

  // At most half a token's life ahead: a token is never "about to expire" as soon as it arrives.
  let skewMs = skewSetting
  const adopt = (body: { accessToken: string; expiresIn: number; user?: User }) => {
    accessToken = body.accessToken
    skewMs = Math.min(skewSetting, (body.expiresIn * 1000) / 2)
    expiresAt = now() + body.expiresIn * 1000
    if (body.user) user = body.user
    if (timer) clearTimeout(timer)
    // Ahead of expiry, so a request rarely meets an expired token.
    timer = setTimeout(() => void refresh().catch(() => undefined), body.expiresIn * 1000 - skewMs)
    ;(timer as { unref?: () => void }).unref?.()
    publish()
  }

  /**
   * One request to `path` under the base URL: JSON `body`, the bearer `token`, and on the auth
   * routes the refresh cookie (browser: `include`; Node: the jar).
   */
  const send = async (path: string, method: string, body: unknown, token: string | null, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    if (body !== undefined) headers.set('Content-Type', 'application/json')
    if (token) headers.set('Authorization', `Bearer ${token}`)
    if (jar && cookie && path.startsWith(authPath)) headers.set('Cookie', cookie)
    const response = await doFetch(`${base}${path}`, {
      ...init,
      method,
      headers,
      credentials: 'include',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    remember(response)
    return response
  }

  /** A request to an auth route; `bearer` adds the current access token as it is. */
  const authRequest = (method: string, path: string, body?: unknown, bearer = false) =>
    send(`${authPath}${path}`, method, body, bearer ? accessToken : null)

  /** Calls an auth route and answers its JSON (or `null` for 204); a refusal throws {@link AuthClientError}. */
  const call = async <T>(method: string, path: string, body?: unknown, bearer = false): Promise<T> => {
    const response = await (bearer ? authorized(`${authPath}${path}`, method, body) : authRequest(method, path, body))
    if (!response.ok) throw await errorFrom(response)
    return (response.status === 204 ? null : await response.json()) as T
  }

  /**
   * One refresh at a time: every caller during a refresh gets its outcome. `false` (and signed
   * out) when the server refused the cookie; a network failure rejects.
   */
  const refresh = (): Promise<boolean> => {
    refreshing ??= (async () => {
      try {
        const response = await authRequest('POST', '/refresh')
        if (response.status === 401) {
          signedOut()
          return false
        }
        if (!response.ok) throw await errorFrom(response)
        const body = (await response.json()) as { accessToken: string; expiresIn: number }
        adopt(body)
        // Who it is (after a reload), asked with the new token directly: me() would wait for
        // this very refresh to finish, which waits for it.
        if (!user) {
          const found = await authRequest('GET', '/me', undefined, true)
          user = found.ok ? ((await found.json()) as User) : null
        }
        publish()
        return true
      } finally {
        refreshing = null
      }
    })()
    return refreshing
  }

  /** A current access token, refreshed first when it is missing or about to expire; `null` when signed out. */
  const getAccessToken = async (): Promise<string | null> => {
    // A refresh under way decides for every caller: its token, or nobody.
    if (refreshing) return (await refreshing) ? accessToken : null
    if (accessToken && now() < expiresAt - skewMs) return accessToken
    if (!accessToken && !user && jar && !cookie) return null
    return (await refresh()) ? accessToken : null
  }

  /** `fetch` with the access token; after a 401 `invalid_token` it refreshes and retries once, never more. */
  const authorized = async (path: string, method = 'GET', body?: unknown, init: RequestInit = {}): Promise<Response> => {
    const used = await getAccessToken()
    const first = await send(path, method, body, used, init)
    if (first.status !== 401 || !/invalid_token/.test(first.headers.get('www-authenticate') ?? '')) return first
    // Another caller may have refreshed meanwhile: use its token rather than spending the cookie again.
    const fresh = accessToken !== null && accessToken !== used ? true : await refresh()
    return fresh ? send(path, method, body, accessToken, init) : first
  }

  const me = async (): Promise<User> => {
    const found = await call<User>('GET', '/me', undefined, true)
    user = found
    publish()
    return found
  }

  return {
    /** The current state, for a UI (stable between changes: `useSyncExternalStore` friendly). */
    getState: (): AuthState => state,
    /** Calls `listener` whenever the signed-in user changes; answers the unsubscribe. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    getAccessToken,
    refresh,
    /**
     * `fetch` for the app's own routes, with the access token. `input` is a path under `baseUrl`.
     *
     * @example
     * const res = await auth.fetch('/todos', { method: 'POST', body: JSON.stringify({ title }), headers: { 'Content-Type': 'application/json' } })
     */
    fetch: (path: string, init: RequestInit = {}) => {
      const { body, method, ...rest } = init
      return authorized(path, method ?? 'GET', undefined, body === undefined || body === null ? rest : { ...rest, body })
    },

    async signUp(input: { name: string; email: string; password: string } & Record<string, unknown>): Promise<User> {
      const body = await call<{ accessToken: string; expiresIn: number; user: User }>('POST', '/signup', input)
      adopt(body)
      return body.user
    },
    async signIn(input: { email: string; password: string }): Promise<SignInResult> {
      const response = await authRequest('POST', '/login', input)
      if (response.status === 202) return { status: 'two-factor', challenge: (await response.json()) as Record<string, unknown> }
      if (!response.ok) throw await errorFrom(response)
      const body = (await response.json()) as { accessToken: string; expiresIn: number; user: User }
      adopt(body)
      return { status: 'signed-in', user: body.user }
    },
    /** Ends this session (with the access token, or the refresh cookie alone after a reload). */
    async signOut(): Promise<void> {
      try {
        const response = await authRequest('POST', '/logout', undefined, accessToken !== null)
        if (!response.ok && response.status !== 401) throw await errorFrom(response)
      } finally {
        cookie = null
        signedOut()
      }
    },
    me,

    sessions: {
      list: () => call<SessionView[]>('GET', '/sessions', undefined, true),
      revoke: (id: string) => call<null>('DELETE', `/sessions/${encodeURIComponent(id)}`, undefined, true),
      revokeOthers: () => call<null>('DELETE', '/sessions', undefined, true),
    },
    changePassword: (input: { currentPassword: string; newPassword: string }) =>
      call<null>('POST', '/change-password', input, true),
    forgotPassword: (input: { email: string }) => call<{ message: string }>('POST', '/forgot-password', input),
    resetPassword: (input: { token: string; newPassword: string }) => call<null>('POST', '/reset-password', input),
    verifyEmail: (input: { token: string }) => call<null>('POST', '/verify-email', input),
    resendVerification: () => call<{ message: string }>('POST', '/resend-verification', undefined, true),
    changeEmail: (input: { currentPassword: string; newEmail: string }) =>
      call<{ message: string }>('POST', '/change-email', input, true),
    confirmEmail: (input: { token: string }) => call<null>('POST', '/confirm-email', input),
    async deleteAccount(input: { currentPassword: string }): Promise<void> {
      await call<null>('POST', '/delete-account', input, true)
      cookie = null
      signedOut()
    },
  }
}
