/** The options of {@link createAuthClient}. */
import type { CrossTabOptions } from './cross-tab.js'
import type { ReauthenticationPrompt, ReauthProof } from './types.js'

export interface AuthClientOptions {
  /** The API's base URL, e.g. `https://api.example.com` (the auth routes are under `authPath`). */
  baseUrl: string
  /**
   * An API key (`lk_…`, made with `POST /auth/api-keys`) for a script, CLI, CI job or agent: every
   * request carries it as `Authorization: Bearer`, with no sign-in and no refresh. A key calls the
   * routes of its scopes and `GET /auth/me`; the other /auth routes answer 403 `session_required`.
   *
   * @example
   * const api = createAuthClient({ baseUrl: 'https://api.example.com', apiKey: process.env.TODO_API_KEY })
   * const todos = await (await api.fetch('/todos')).json()
   */
  apiKey?: string
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
