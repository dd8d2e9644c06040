/**
 * The client's runtime: one state of the machine (machine.ts), and the effects its transitions ask
 * for — the refresh timer, the refresh and the step-up under way (each shared by every caller),
 * the tabs' channel, the listeners. The access token lives here, in memory only.
 *
 * Every endpoint module (client.ts, and a feature's own file) reaches the server through two
 * entries: `call` an /auth endpoint (as `'session'`: with the current token, refreshed ahead of
 * its expiry and once after a 401 `invalid_token`, and stepped up when the app asks for it), and
 * `adopt` the AuthResult of any sign-in route into the signed-in state.
 */
import { type CrossTabMessage, tabsOf } from './cross-tab.js'
import { AuthClientError, errorFrom, isStepUpChallenge, ReauthenticationRequiredError } from './errors.js'
import { type ClientEvent, type Effect, initialState, logoutToken, tokenPlan, transition } from './machine.js'
import type { AuthClientOptions } from './options.js'
import { createRefresh } from './refresh.js'
import { createTransport } from './transport.js'
import type {
  AnswerOf,
  AuthResult,
  AuthState,
  ReauthProof,
  RequestOf,
  Route,
  SignInResult,
  TwoFactorChallenge,
  User,
} from './types.js'

/** Which token a request carries: the session's (`'session'`), a given one as it is, or none. */
export type Bearer = 'session' | { token: string | null } | null

export type AuthCore = ReturnType<typeof createCore>

export const createCore = (options: AuthClientOptions) => {
  const transport = createTransport({
    baseUrl: options.baseUrl,
    authPath: options.authPath ?? '/auth',
    fetch: options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init)),
    cookieJar: options.cookieJar ?? typeof (globalThis as { document?: unknown }).document === 'undefined',
  })
  const now = options.now ?? Date.now
  // An API key is the credential as it is: no sign-in, no refresh (docs/guide/api-keys.md#from-code).
  const apiKey = options.apiKey ?? null
  if (apiKey !== null && !/^lk_[0-9A-Za-z]+$/.test(apiKey))
    throw new TypeError('createAuthClient: `apiKey` must be an API key (lk_…), as POST /auth/api-keys answered it')
  const settings = { skewMs: (options.refreshSkewSeconds ?? 30) * 1000 }
  const tabs = tabsOf(options.crossTab)
  let state = initialState
  /** What the effects left running: the refresh timer, and the refresh and step-up under way. */
  const running: {
    timer?: ReturnType<typeof setTimeout>
    refresh: Promise<boolean> | null
    stepUp: Promise<boolean> | null
  } = { refresh: null, stepUp: null }
  /** Refreshes waiting for another tab's token or sign-out. */
  const waiting = new Set<() => void>()
  const listeners = new Set<() => void>()

  const dispatch = (event: ClientEvent) => {
    const step = transition(state, event, settings)
    state = step.state
    for (const effect of step.effects) perform(effect)
  }

  const perform = (effect: Effect) => {
    switch (effect.type) {
      case 'schedule-refresh':
        clearTimeout(running.timer)
        // Ahead of expiry, so a request rarely meets an expired token.
        running.timer = setTimeout(() => void refresh().catch(() => undefined), effect.inMs)
        ;(running.timer as { unref?: () => void }).unref?.()
        return
      case 'cancel-refresh':
        return clearTimeout(running.timer)
      case 'tell':
        return tabs?.channel.postMessage({ ...effect.message, api: transport.api })
      case 'publish':
        for (const listener of listeners) listener()
        return
      case 'wake-waiting':
        for (const wake of waiting) wake()
        return
      case 'start-refresh':
        running.refresh = refreshOnce().finally(() => {
          running.refresh = null
          dispatch({ type: 'refresh-settled' })
        })
        return
      case 'start-step-up':
        running.stepUp = askUntilProven(effect.error).finally(() => {
          running.stepUp = null
          dispatch({ type: 'step-up-settled' })
        })
        return
    }
  }

  tabs?.channel.addEventListener('message', (event: MessageEvent<CrossTabMessage>) => {
    const message = event.data
    if (!message || (message.api !== undefined && message.api !== transport.api)) return
    if (message.type === 'token' && typeof message.accessToken === 'string' && typeof message.expiresIn === 'number') {
      const at = now()
      const { accessToken, expiresIn, user } = message
      dispatch({ type: 'token', token: accessToken, expiresAt: at + expiresIn * 1000, user, from: 'peer', now: at })
    } else if (message.type === 'signed-out') dispatch({ type: 'peer-signed-out' })
  })

  /** Takes the token of a sign-in route's answer (the user, when it names one); answers the user. */
  const adopt = <T extends { accessToken: string; expiresIn: number; user?: User | undefined }>(result: T): T['user'] => {
    const at = now()
    const expiresAt = at + result.expiresIn * 1000
    dispatch({ type: 'token', token: result.accessToken, expiresAt, user: result.user, from: 'self', now: at })
    return result.user
  }

  /** A request to an /auth route (`route`: `'POST /login'`; `{id}` filled from `params`), with the token `bearer` names. */
  const send = <R extends Route>(route: R, body: RequestOf<R>, bearer: Bearer = null, params: Record<string, string> = {}) => {
    const [method = 'GET', template = ''] = route.split(' ')
    const path = `${transport.authPath}${template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))}`
    if (bearer === 'session') return authorized(path, method, body)
    return transport.send(path, method, body, bearer?.token ?? null)
  }

  /** Calls an /auth route and answers its JSON (`null` for 204); a refusal throws {@link AuthClientError}. */
  const call = async <R extends Route>(
    route: R,
    body: RequestOf<R>,
    bearer: Bearer = null,
    params?: Record<string, string>,
  ): Promise<AnswerOf<R>> => {
    const response = await send(route, body, bearer, params)
    if (!response.ok) throw await errorFrom(response)
    return (response.status === 204 ? null : await response.json()) as AnswerOf<R>
  }

  const refreshOnce = createRefresh({
    state: () => state,
    dispatch,
    now,
    tabs,
    waiting,
    sendRefresh: () => send('POST /refresh', undefined),
    sendMe: (token) => send('GET /me', undefined, { token }),
    adopt,
  })

  /**
   * One refresh at a time: every caller during a refresh gets its outcome. `false` (and signed
   * out) when the server refused the cookie, or while signing out; a network failure rejects.
   */
  const refresh = (): Promise<boolean> => {
    dispatch({ type: 'refresh-asked' })
    return running.refresh ?? Promise.resolve(false)
  }

  /** A current access token, refreshed first when it is missing or about to expire; `null` when signed out. */
  const getAccessToken = async (): Promise<string | null> => {
    if (apiKey !== null) return apiKey
    const plan = tokenPlan(state, now(), transport.mayHaveCookie())
    if (plan === 'use') return state.token?.value ?? null
    if (plan === 'none') return null
    return (await refresh()) ? (state.token?.value ?? null) : null
  }

  /** `fetch` with the access token; after a 401 `invalid_token` it refreshes and retries once, never more. */
  const withToken = async (path: string, method: string, body: unknown, init: RequestInit = {}): Promise<Response> => {
    const used = await getAccessToken()
    const first = await transport.send(path, method, body, used, init)
    if (apiKey !== null) return first
    if (first.status !== 401 || !/invalid_token/.test(first.headers.get('www-authenticate') ?? '')) return first
    // Another caller may have refreshed meanwhile: use its token rather than spending the cookie again.
    const current = state.token?.value ?? null
    const fresh = current !== null && current !== used ? true : await refresh()
    return fresh ? transport.send(path, method, body, state.token?.value ?? null, init) : first
  }

  /** Re-authenticates the session: a new access token that carries the new proof. A refusal throws. */
  const reauth = async (proof: ReauthProof): Promise<User> => {
    const response = await withToken(`${transport.authPath}/reauth`, 'POST', proof)
    if (!response.ok) throw await errorFrom(response)
    return adopt((await response.json()) as AuthResult)
  }

  /**
   * Asks the app for a proof until one is accepted (`true`) or the app gives up (`false`). A
   * refused proof (400) asks again with the refusal; any other failure (429, network) throws.
   */
  const askUntilProven = async (
    error: ReauthenticationRequiredError,
    failure: AuthClientError | null = null,
  ): Promise<boolean> => {
    const proof = await options.onReauthenticationRequired?.({ error, failure })
    if (!proof) return false
    try {
      await reauth(proof)
      return true
    } catch (err) {
      if (!(err instanceof AuthClientError) || err.status !== 400) throw err
      return askUntilProven(error, err)
    }
  }

  /**
   * {@link withToken}, and with `onReauthenticationRequired`: a step-up challenge asks for a proof
   * (concurrent refusals share one ask) and the request is sent once more. The answer to that
   * second request stands.
   */
  const authorized = async (path: string, method: string, body?: unknown, init: RequestInit = {}): Promise<Response> => {
    const first = await withToken(path, method, body, init)
    if (!options.onReauthenticationRequired || !isStepUpChallenge(first)) return first
    const error = await errorFrom(first.clone())
    if (!(error instanceof ReauthenticationRequiredError)) return first
    dispatch({ type: 'step-up-asked', error })
    if (!(await (running.stepUp ?? false))) return first
    return withToken(path, method, body, init)
  }

  return {
    origin: transport.origin,
    urlOf: transport.urlOf,
    getState: (): AuthState => state.view,
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close(): void {
      clearTimeout(running.timer)
      tabs?.channel.close()
    },
    getAccessToken,
    refresh,
    /** A request to any path under the base URL, with the session's token (see {@link authorized}). */
    authorized,
    send,
    call,
    adopt,
    reauth,
    /** A sign-in's first step (password, mail, passkey): signed in, or the two-factor challenge to answer. */
    async signIn<R extends Route>(route: R, body: RequestOf<R>): Promise<SignInResult> {
      const response = await send(route, body)
      if (response.status === 202) return { status: 'two-factor', challenge: (await response.json()) as TwoFactorChallenge }
      if (!response.ok) throw await errorFrom(response)
      return { status: 'signed-in', user: adopt((await response.json()) as AuthResult) }
    },
    /** Who is signed in, asked of the server; the state follows. */
    async me(): Promise<User> {
      const found = await call('GET /me', undefined, 'session')
      dispatch({ type: 'user', user: found })
      return found
    },
    /** Ends this session (with the access token, or the refresh cookie alone after a reload). */
    async signOut(): Promise<void> {
      // A refresh under way ends first, so the session it renewed is the one that ends here.
      dispatch({ type: 'sign-out-asked' })
      try {
        await running.refresh?.catch(() => undefined)
        // The token, while it is fresh, names the session; an expired one would decide the answer
        // (401) before the cookie is read and leave the session alive, so then, or when the token
        // is refused anyway, the refresh cookie alone ends it (docs/reference/endpoints.md#logout).
        const token = logoutToken(state, now())
        let response = await send('POST /logout', undefined, { token })
        if (token && response.status === 401) response = await send('POST /logout', undefined)
        if (!response.ok && response.status !== 401) throw await errorFrom(response)
      } finally {
        transport.forgetCookie()
        dispatch({ type: 'sign-out-settled' })
      }
    },
    /** The session is over at the server (the account is gone): forget it here and in the other tabs. */
    ended(): void {
      transport.forgetCookie()
      dispatch({ type: 'signed-out', tell: true })
    },
  }
}
