/**
 * The client side of @latchkey/auth's sessions: the access token lives in memory only, is
 * refreshed ahead of its expiry and once after a 401 `invalid_token`, and concurrent callers
 * share one refresh (a second refresh with the same cookie would be a race at best and a reuse
 * at worst). In a browser the refresh cookie is the browser's (HttpOnly, `credentials:
 * 'include'`); in Node the client keeps it itself.
 */
import { type CrossTabMessage, type CrossTabOptions, HANDOVER_MS, PEER_WAIT_MS, tabsOf } from './cross-tab.js'
import { AuthClientError, errorFrom, isStepUpChallenge, networkError, ReauthenticationRequiredError } from './errors.js'
import { type PasskeyProof, type PasskeyRequestOptions, passkeysOf } from './passkeys.js'

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

/** The 202 of a sign-in to an account with a second factor: answer it with {@link AuthClient.verifyTwoFactor}. */
export interface TwoFactorChallenge {
  twoFactorRequired: true
  /** Single use; lives `expiresIn` seconds. */
  challenge: string
  expiresIn: number
  /** What may answer it; `passkey`: `passkeys.verifyTwoFactor(challenge)`. */
  methods?: ('totp' | 'recovery' | 'passkey')[]
  /** With `passkey`: the request options for the account's passkeys. */
  passkeyOptions?: PasskeyRequestOptions
}

/** What a sign-in answered: signed in, or (an account with a second factor) a challenge to answer. */
export type SignInResult = { status: 'signed-in'; user: User } | { status: 'two-factor'; challenge: TwoFactorChallenge }

/**
 * The 202 of `POST /auth/email-sign-in`, the same for every address: keep `flow` in the page that
 * asked, and send it back with the code from the mail ({@link AuthClient.emailSignIn}).
 */
export interface EmailSignInStarted {
  message: string
  flow: string
}

/** What proves a sign-in mail: its link's token, or its code with the flow that asked for it. */
export type EmailSignInProof = { token: string } | { flow: string; code: string }

/** `GET /auth/two-factor`. */
export interface TwoFactorStatus {
  enabled: boolean
  /** Set up and waiting for its first code (`twoFactor.enable`). */
  pending: boolean
  recoveryCodesLeft: number
}

/**
 * What proves the user again (`reauth`): the password or a passkey's assertion (see
 * `passkeys.reauth()`), and a code when two-factor sign-in is on.
 */
export type ReauthProof = ({ password: string } | { passkey: PasskeyProof }) & {
  /** A code of the authenticator app, or an unused recovery code. */
  code?: string
}

/** What {@link AuthClientOptions.onReauthenticationRequired} is asked with. */
export interface ReauthenticationPrompt {
  /** The refusal that asked for it: its `maxAge` is the operation's fresh age in seconds. */
  error: ReauthenticationRequiredError
  /** Why the last proof given was refused (a wrong password or code); `null` on the first ask. */
  failure: AuthClientError | null
}

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
  /**
   * Keep the tabs of one origin in step: one tab refreshes at a time (Web Locks) and the others
   * take its token (BroadcastChannel); signing out in one signs out all. Default: on in a browser
   * that has both APIs, off elsewhere (in Node a `BroadcastChannel` spans the process and would
   * couple unrelated clients); `true` turns it on wherever both exist. Without a lock manager or
   * `BroadcastChannel` it stays off. See {@link CrossTabOptions}.
   */
  crossTab?: boolean | CrossTabOptions
  /**
   * Opt-in step-up: when a request is refused with 401 `reauthentication-required` (the operation
   * needs a recent sign-in), ask the user for their password (and code) and answer it, or `null`
   * to give up. The client re-authenticates the session (`POST /auth/reauth`; a refused proof asks
   * again with `failure` set) and retries the original request once. Concurrent refusals share one
   * ask. Without it, the request throws {@link ReauthenticationRequiredError}.
   *
   * @example
   * onReauthenticationRequired: async ({ failure }) => {
   *   const password = await askPassword(failure?.detail)
   *   return password === null ? null : { password }
   * }
   */
  onReauthenticationRequired?: (prompt: ReauthenticationPrompt) => Promise<ReauthProof | null>
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
  const origin = new URL(base).origin
  /**
   * The URL of `path` under the base URL. A path must start with `/`: glued to the base, any
   * other (`@evil.example/x`, `.evil.example/x`, a full URL) could name another host, and the
   * access token goes to `baseUrl`'s origin only.
   */
  const urlOf = (path: string): string => {
    const url = `${base}${path}`
    if (typeof path !== 'string' || !path.startsWith('/') || new URL(url).origin !== origin)
      throw new TypeError(
        `auth.fetch: the path must start with "/" and stay on ${origin} (got ${JSON.stringify(String(path)).slice(0, 80)})`,
      )
    return url
  }
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
  /** True from the start of signOut() until the session is ended: no new refresh begins meanwhile. */
  let signingOut = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const listeners = new Set<() => void>()
  let state: AuthState = { user: null }
  /** Counts the tokens adopted, here or from another tab: a refresh that waited for the lock sees whether one came meanwhile. */
  let generation = 0
  /** The generation of the last sign-out, here or in another tab. */
  let signedOutAt = 0
  const tabs = tabsOf(options.crossTab)
  const api = `${base}${authPath}`
  /** Resolves the waits of {@link peerToken} when another tab's token or sign-out arrives. */
  const peerWaits = new Set<() => void>()
  const tell = (message: CrossTabMessage) => tabs?.channel.postMessage({ ...message, api })

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

  const signedOut = (fromPeer = false) => {
    accessToken = null
    expiresAt = 0
    user = null
    generation++
    signedOutAt = generation
    if (timer) clearTimeout(timer)
    if (!fromPeer) tell({ type: 'signed-out' })
    publish()
    for (const wake of peerWaits) wake()
  }

  // At most half a token's life ahead: a token is never "about to expire" as soon as it arrives.
  let skewMs = skewSetting
  /** Takes a token, from an answer of this client or (`fromPeer`) from another tab. */
  const take = (token: string, until: number, newUser: User | null | undefined, fromPeer: boolean) => {
    accessToken = token
    const lifetime = Math.max(0, until - now())
    skewMs = Math.min(skewSetting, lifetime / 2)
    expiresAt = until
    if (newUser) user = newUser
    generation++
    if (timer) clearTimeout(timer)
    // Ahead of expiry, so a request rarely meets an expired token.
    timer = setTimeout(() => void refresh().catch(() => undefined), lifetime - skewMs)
    ;(timer as { unref?: () => void }).unref?.()
    if (!fromPeer) tell({ type: 'token', accessToken: token, expiresIn: lifetime / 1000, user })
    publish()
    for (const wake of peerWaits) wake()
  }
  const adopt = (body: { accessToken: string; expiresIn: number; user?: User }) =>
    take(body.accessToken, now() + body.expiresIn * 1000, body.user, false)

  tabs?.channel.addEventListener('message', (event: MessageEvent<CrossTabMessage>) => {
    const message = event.data
    if (!message || (message.api !== undefined && message.api !== api)) return
    if (message.type === 'token' && typeof message.accessToken === 'string' && typeof message.expiresIn === 'number')
      take(message.accessToken, now() + message.expiresIn * 1000, message.user, true)
    else if (message.type === 'signed-out') {
      if (accessToken !== null || user !== null) signedOut(true)
      else for (const wake of peerWaits) wake()
    }
  })

  /** Whether another tab's token arrives within `ms` (after this tab's refresh lost a race to it). */
  const peerToken = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const seen = generation
      const done = () => {
        clearTimeout(timeout)
        peerWaits.delete(done)
        resolve(generation !== seen && accessToken !== null)
      }
      const timeout = setTimeout(done, ms)
      peerWaits.add(done)
    })

  /**
   * One request to `path` under the base URL: JSON `body`, the bearer `token`, and on the auth
   * routes the refresh cookie (browser: `include`; Node: the jar).
   */
  const send = async (path: string, method: string, body: unknown, token: string | null, init: RequestInit = {}) => {
    const url = urlOf(path)
    const headers = new Headers(init.headers)
    if (body !== undefined) headers.set('Content-Type', 'application/json')
    if (token) headers.set('Authorization', `Bearer ${token}`)
    if (jar && cookie && path.startsWith(authPath)) headers.set('Cookie', cookie)
    const response = await doFetch(url, {
      ...init,
      method,
      headers,
      credentials: 'include',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((err: unknown) => {
      // fetch's own failure (no answer); an abort (DOMException) stays what it is.
      throw err instanceof TypeError ? networkError(url, err) : err
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

  /** After another tab's token was taken: learns who it is if that tab did not say. */
  const peerTaken = async () => {
    const token = accessToken
    if (!user && token) {
      const found = await whoIs(token)
      if (found && accessToken === token && !user) {
        user = found
        publish()
      }
    }
    return accessToken !== null
  }

  /**
   * One refresh at a time: every caller during a refresh gets its outcome. `false` (and signed
   * out) when the server refused the cookie; a network failure rejects.
   */
  const refresh = (): Promise<boolean> => {
    // Asked while signing out: the session is ending, its cookie is not to be spent again.
    if (signingOut && !refreshing) return Promise.resolve(false)
    refreshing ??= (async () => {
      try {
        const seen = generation
        const wasSignedIn = accessToken !== null || user !== null
        const outcome = tabs ? await refreshInTurn(tabs, seen) : await refreshNow()
        if (outcome === 'ok') return true
        if (outcome === 'peer') return peerTaken()
        if (tabs) {
          // Another tab may have rotated the cookie under this request (a race the server refuses
          // quietly, inside its grace window): the winner's token settles it. Waited for outside
          // the lock, and only by a tab that was signed in: a tab without a session (a first
          // visit, after a sign-out) is answered at once, and its refusal is not news to the others.
          if (generation !== seen && accessToken !== null) return peerTaken()
          // Signed out meanwhile (another tab said so), or never signed in: nothing to wait for.
          if (!wasSignedIn || signedOutAt > seen) {
            signedOut(true)
            return false
          }
          // No other tab in line for the lock: no token is coming, the session is over (a session
          // revoked elsewhere says so at once, not after the wait).
          if (outcome !== 'refused-alone' && (await peerToken(PEER_WAIT_MS))) return peerTaken()
        }
        signedOut()
        return false
      } finally {
        refreshing = null
      }
    })()
    return refreshing
  }

  /**
   * Cross-tab: one tab at a time refreshes. A tab that got the lock after another tab's refresh
   * takes that token instead of spending the cookie again. The lock stays held a moment after a
   * refresh so the others read its broadcast before they get the lock; the caller has its
   * answer at once.
   */
  const refreshInTurn = (shared: NonNullable<typeof tabs>, seen: number) =>
    new Promise<'ok' | 'refused' | 'refused-alone' | 'peer'>((resolve, reject) => {
      shared.locks
        .request(shared.lock, async () => {
          if (generation !== seen && accessToken !== null && now() < expiresAt - skewMs) return resolve('peer')
          // Another tab signed out while this one waited: its cookie is gone, asking would only be refused.
          if (signedOutAt > seen && accessToken === null) return resolve('refused')
          const outcome = await refreshNow()
          if (outcome === 'refused' && (await aloneInLine(shared))) return resolve('refused-alone')
          resolve(outcome)
          if (outcome === 'ok') await new Promise((done) => setTimeout(done, HANDOVER_MS))
        })
        .catch(reject)
    })

  /** While holding the lock: whether no other tab waits for it (unknown, without `query()`: `false`). */
  const aloneInLine = async (shared: NonNullable<typeof tabs>) => {
    if (!shared.locks.query) return false
    const { pending = [] } = await shared.locks.query().catch(() => ({ pending: [{ name: shared.lock }] }))
    return !pending.some((request) => request.name === shared.lock)
  }

  /** The refresh request itself; a refusal (401) is the caller's to settle. */
  const refreshNow = async (): Promise<'ok' | 'refused'> => {
    const response = await authRequest('POST', '/refresh')
    if (response.status === 401) return 'refused'
    if (!response.ok) throw await errorFrom(response)
    const body = (await response.json()) as { accessToken: string; expiresIn: number }
    // Who it is (after a reload), asked before the token is taken so that the other tabs hear
    // of both at once.
    adopt({ ...body, user: (await whoIs(body.accessToken)) ?? undefined })
    return 'ok'
  }

  /**
   * The user of `token` when this client does not know it yet (after a reload), asked with the
   * token directly: me() would wait for the very refresh that is asking.
   */
  const whoIs = async (token: string): Promise<User | null> => {
    if (user) return user
    const found = await send(`${authPath}/me`, 'GET', undefined, token)
    return found.ok ? ((await found.json()) as User) : null
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
  const withToken = async (path: string, method = 'GET', body?: unknown, init: RequestInit = {}): Promise<Response> => {
    const used = await getAccessToken()
    const first = await send(path, method, body, used, init)
    if (first.status !== 401 || !/invalid_token/.test(first.headers.get('www-authenticate') ?? '')) return first
    // Another caller may have refreshed meanwhile: use its token rather than spending the cookie again.
    const fresh = accessToken !== null && accessToken !== used ? true : await refresh()
    return fresh ? send(path, method, body, accessToken, init) : first
  }

  /** A sign-in's first step (password or mail): signed in, or the two-factor challenge to answer. */
  const firstFactor = async (path: string, input: unknown): Promise<SignInResult> => {
    const response = await authRequest('POST', path, input)
    if (response.status === 202) return { status: 'two-factor', challenge: (await response.json()) as TwoFactorChallenge }
    if (!response.ok) throw await errorFrom(response)
    const body = (await response.json()) as { accessToken: string; expiresIn: number; user: User }
    adopt(body)
    return { status: 'signed-in', user: body.user }
  }

  /** Re-authenticates the session: a new access token that carries the new proof. A refusal throws. */
  const reauth = async (proof: ReauthProof): Promise<User> => {
    const response = await withToken(`${authPath}/reauth`, 'POST', proof)
    if (!response.ok) throw await errorFrom(response)
    const result = (await response.json()) as { accessToken: string; expiresIn: number; user: User }
    adopt(result)
    return result.user
  }

  /** The one step-up under way: every request refused meanwhile waits for it. */
  let steppingUp: Promise<boolean> | null = null
  /**
   * Asks the app for a proof until one is accepted (`true`) or the app gives up (`false`). A
   * refused proof (400) asks again with the refusal; any other failure (429, network) throws.
   */
  const stepUp = (error: ReauthenticationRequiredError): Promise<boolean> => {
    const ask = options.onReauthenticationRequired
    if (!ask) return Promise.resolve(false)
    steppingUp ??= (async () => {
      try {
        let failure: AuthClientError | null = null
        for (;;) {
          const proof = await ask({ error, failure })
          if (!proof) return false
          try {
            await reauth(proof)
            return true
          } catch (err) {
            if (!(err instanceof AuthClientError) || err.status !== 400) throw err
            failure = err
          }
        }
      } finally {
        steppingUp = null
      }
    })()
    return steppingUp
  }

  /**
   * {@link withToken}, and with `onReauthenticationRequired`: a step-up challenge asks for a proof
   * and the request is sent once more. The answer to that second request stands.
   */
  const authorized = async (path: string, method = 'GET', body?: unknown, init: RequestInit = {}): Promise<Response> => {
    const first = await withToken(path, method, body, init)
    if (!options.onReauthenticationRequired || !isStepUpChallenge(first)) return first
    const error = await errorFrom(first.clone())
    if (!(error instanceof ReauthenticationRequiredError) || !(await stepUp(error))) return first
    return withToken(path, method, body, init)
  }

  const me = async (): Promise<User> => {
    const found = await call<User>('GET', '/me', undefined, true)
    user = found
    publish()
    return found
  }

  return {
    /** `baseUrl`'s origin: the only one the access token is ever sent to. */
    origin,
    /** The current state, for a UI (stable between changes: `useSyncExternalStore` friendly). */
    getState: (): AuthState => state,
    /** Stops the refresh timer and leaves the tabs' channel (a client that is no longer used). */
    close(): void {
      if (timer) clearTimeout(timer)
      tabs?.channel.close()
    },
    /** Calls `listener` whenever the signed-in user changes; answers the unsubscribe. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    getAccessToken,
    refresh,
    /**
     * `fetch` for the app's own routes, with the access token. `path` starts with `/` and is taken
     * under `baseUrl`; anything else is a `TypeError` (the token never goes to another origin).
     *
     * @example
     * const res = await auth.fetch('/todos', { method: 'POST', body: JSON.stringify({ title }), headers: { 'Content-Type': 'application/json' } })
     */
    fetch: async (path: string, init: RequestInit = {}) => {
      // A path that could leave `baseUrl`'s origin is refused before the token is looked up
      // (which may itself send a refresh): a `TypeError`, and no request at all.
      urlOf(path)
      const { body, method, ...rest } = init
      return authorized(path, method ?? 'GET', undefined, body === undefined || body === null ? rest : { ...rest, body })
    },

    async signUp(input: { name: string; email: string; password: string } & Record<string, unknown>): Promise<User> {
      const body = await call<{ accessToken: string; expiresIn: number; user: User }>('POST', '/signup', input)
      adopt(body)
      return body.user
    },
    signIn: (input: { email: string; password: string }): Promise<SignInResult> => firstFactor('/login', input),
    /**
     * Sign-in by email: `start` mails a link and a 6-digit code (every address gets the same
     * answer); `verify` spends the link's token or the code with the `flow` from `start`, and
     * answers like {@link signIn}: signed in, or the two-factor challenge.
     *
     * @example
     * const { flow } = await auth.emailSignIn.start('ada@example.com')
     * const result = await auth.emailSignIn.verify({ flow, code: '042917' })
     */
    emailSignIn: {
      start: (email: string) => call<EmailSignInStarted>('POST', '/email-sign-in', { email }),
      verify: (proof: EmailSignInProof): Promise<SignInResult> => firstFactor('/email-sign-in/verify', proof),
    },
    /**
     * Proves the user again for the current session (password, and `code` when two-factor sign-in
     * is on), so operations that need a recent sign-in (`x-fresh`) pass. The refresh cookie is
     * left as it is. A wrong password or code throws an {@link AuthClientError} (400).
     */
    reauth,
    /** Passkeys: sign in (also by autofill), add, list, rename, remove, re-authenticate (`./passkeys.ts`). */
    passkeys: passkeysOf<SignInResult, User>({ call, firstFactor, reauth }),
    /** Finishes a sign-in that answered a challenge: a code from the authenticator app, or an unused recovery code. */
    async verifyTwoFactor(input: { challenge: string; code: string }): Promise<User> {
      const body = await call<{ accessToken: string; expiresIn: number; user: User }>('POST', '/two-factor/verify', input)
      adopt(body)
      return body.user
    },
    /** Ends this session (with the access token, or the refresh cookie alone after a reload). */
    async signOut(): Promise<void> {
      signingOut = true
      try {
        // A refresh under way ends first, so the session it renewed is the one that ends here.
        await refreshing?.catch(() => undefined)
        // The token, while it is fresh, names the session; an expired one would decide the answer
        // (401) before the cookie is read and leave the session alive, so then, or when the token
        // is refused anyway, the refresh cookie alone ends it (docs/reference/endpoints.md#logout).
        const fresh = accessToken !== null && now() < expiresAt
        let response = await authRequest('POST', '/logout', undefined, fresh)
        if (fresh && response.status === 401) response = await authRequest('POST', '/logout')
        if (!response.ok && response.status !== 401) throw await errorFrom(response)
      } finally {
        signingOut = false
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
    /** `currentPassword` may be left out on a session that signed in recently (see {@link reauth}). */
    changeEmail: (input: { currentPassword?: string; newEmail: string }) =>
      call<{ message: string }>('POST', '/change-email', input, true),
    confirmEmail: (input: { token: string }) => call<null>('POST', '/confirm-email', input),
    /** The second factor of the signed-in user (docs/reference/two-factor.md). */
    twoFactor: {
      status: () => call<TwoFactorStatus>('GET', '/two-factor', undefined, true),
      /**
       * A new key, pending until `enable`: put `uri` in a QR code, or `secret` into the app. The
       * account's address must be verified (otherwise a 403 `email-unverified` problem); a 6-digit
       * code is mailed to it for `enable`. `currentPassword` may be left out on a session that
       * signed in recently (see {@link reauth}).
       */
      setup: (input: { currentPassword?: string } = {}) =>
        call<{ secret: string; uri: string }>('POST', '/two-factor/setup', input, true),
      /**
       * Turns it on with the app's current code and `emailCode`, the code setup mailed (10 minutes;
       * the fifth wrong one kills it); answers the ten recovery codes, once. Other sessions end.
       */
      enable: (input: { code: string; emailCode: string }) =>
        call<{ recoveryCodes: string[] }>('POST', '/two-factor/enable', input, true),
      /** `code`: a code from the app or an unused recovery code. */
      disable: (input: { currentPassword?: string; code: string }) => call<null>('POST', '/two-factor/disable', input, true),
      /** A fresh set of ten recovery codes; the old set stops working. `code`: a code from the app. */
      regenerateRecoveryCodes: (input: { currentPassword?: string; code: string }) =>
        call<{ recoveryCodes: string[] }>('POST', '/two-factor/recovery-codes', input, true),
    },
    /**
     * `currentPassword` may be left out on a session that signed in recently (see {@link reauth});
     * `code` (a code from the app or an unused recovery code) is required while two-factor is on.
     */
    async deleteAccount(input: { currentPassword?: string; code?: string } = {}): Promise<void> {
      await call<null>('POST', '/delete-account', input, true)
      cookie = null
      signedOut()
    },
  }
}
