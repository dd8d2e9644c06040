/**
 * `createAuthClient`: the client's public calls, one per /auth operation, over the runtime in
 * core.ts (the session's state machine and its effects). The access token lives in memory only,
 * is refreshed ahead of its expiry and once after a 401 `invalid_token`, and concurrent callers
 * share one refresh (a second refresh with the same cookie would be a race at best and a reuse at
 * worst). In a browser the refresh cookie is the browser's (HttpOnly, `credentials: 'include'`);
 * in Node the client keeps it itself.
 */
import { createCore } from './core.js'
import { oauthOf } from './oauth.js'
import type { AuthClientOptions } from './options.js'
import { passkeysOf } from './passkeys.js'
import type { EmailSignInProof, ReauthProof, RequestOf, SignInResult, User } from './types.js'

export type AuthClient = ReturnType<typeof createAuthClient>

/**
 * @example
 * const auth = createAuthClient({ baseUrl: 'https://api.example.com' })
 * await auth.signIn({ email, password })
 * const todos = await (await auth.fetch('/todos')).json()
 */
export const createAuthClient = (options: AuthClientOptions) => {
  const core = createCore(options)
  const { call } = core
  return {
    /** `baseUrl`'s origin: the only one the access token is ever sent to. */
    origin: core.origin,
    /** The current state, for a UI (stable between changes: `useSyncExternalStore` friendly). */
    getState: core.getState,
    /** Stops the refresh timer and leaves the tabs' channel (a client that is no longer used). */
    close: core.close,
    /** Calls `listener` whenever the signed-in user changes; answers the unsubscribe. */
    subscribe: core.subscribe,
    /** A current access token, refreshed first when it is missing or about to expire; `null` when signed out. */
    getAccessToken: core.getAccessToken,
    /**
     * One refresh at a time: every caller during a refresh gets its outcome. `false` (and signed
     * out) when the server refused the cookie; a network failure rejects.
     */
    refresh: core.refresh,
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
      core.urlOf(path)
      const { body, method, ...rest } = init
      return core.authorized(path, method ?? 'GET', undefined, body === undefined || body === null ? rest : { ...rest, body })
    },

    async signUp(input: { name: string; email: string; password: string } & Record<string, unknown>): Promise<User> {
      return core.adopt(await call('POST /signup', input))
    },
    signIn: (input: RequestOf<'POST /login'>): Promise<SignInResult> => core.signIn('POST /login', input),
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
      start: (email: string) => call('POST /email-sign-in', { email }),
      verify: (proof: EmailSignInProof): Promise<SignInResult> => core.signIn('POST /email-sign-in/verify', proof),
    },
    /**
     * Proves the user again for the current session (password, and `code` when two-factor sign-in
     * is on), so operations that need a recent sign-in (`x-fresh`) pass. The refresh cookie is
     * left as it is. A wrong password or code throws an {@link AuthClientError} (400).
     */
    reauth: (proof: ReauthProof): Promise<User> => core.reauth(proof),
    /** Passkeys: sign in (also by autofill), add, list, rename, remove, re-authenticate (passkeys.ts). */
    passkeys: passkeysOf(core),
    /**
     * The signed-in user's API keys (docs/guide/api-keys.md). `create` needs a recent sign-in and
     * a verified address, and answers the key once (`key`); `list` never shows it again.
     *
     * @example
     * const { key } = await auth.apiKeys.create({ name: 'CI', scopes: ['todos:read'], expiresInDays: 30 })
     */
    apiKeys: {
      list: () => call('GET /api-keys', undefined, 'session'),
      create: (input: { name: string; scopes: string[]; expiresInDays?: number }) =>
        call('POST /api-keys', input as RequestOf<'POST /api-keys'>, 'session'),
      revoke: (id: string) => call('DELETE /api-keys/{id}', undefined, 'session', { id }),
    },
    /** Social sign-in: the providers, a sign-in or a link by navigation, the identities, the landing URL (oauth.ts). */
    oauth: oauthOf(core, options.authPath ?? '/auth'),
    /** Finishes a sign-in that answered a challenge: a code from the authenticator app, or an unused recovery code. */
    async verifyTwoFactor(input: { challenge: string; code: string }): Promise<User> {
      return core.adopt(await call('POST /two-factor/verify', input))
    },
    /** Ends this session (with the access token, or the refresh cookie alone after a reload). */
    signOut: core.signOut,
    /** Who is signed in, asked of the server (the state follows). */
    me: core.me,

    sessions: {
      list: () => call('GET /sessions', undefined, 'session'),
      revoke: (id: string) => call('DELETE /sessions/{id}', undefined, 'session', { id }),
      revokeOthers: () => call('DELETE /sessions', undefined, 'session'),
    },
    changePassword: (input: RequestOf<'POST /change-password'>) => call('POST /change-password', input, 'session'),
    forgotPassword: (input: RequestOf<'POST /forgot-password'>) => call('POST /forgot-password', input),
    resetPassword: (input: RequestOf<'POST /reset-password'>) => call('POST /reset-password', input),
    verifyEmail: (input: RequestOf<'POST /verify-email'>) => call('POST /verify-email', input),
    resendVerification: () => call('POST /resend-verification', undefined, 'session'),
    /** `currentPassword` may be left out on a session that signed in recently (see {@link reauth}). */
    changeEmail: (input: RequestOf<'POST /change-email'>) => call('POST /change-email', input, 'session'),
    confirmEmail: (input: RequestOf<'POST /confirm-email'>) => call('POST /confirm-email', input),
    /** The second factor of the signed-in user (docs/reference/two-factor.md). */
    twoFactor: {
      status: () => call('GET /two-factor', undefined, 'session'),
      /**
       * A new key, pending until `enable`: put `uri` in a QR code, or `secret` into the app. The
       * account's address must be verified (otherwise a 403 `email-unverified` problem); a 6-digit
       * code is mailed to it for `enable`. `currentPassword` may be left out on a session that
       * signed in recently (see {@link reauth}).
       */
      setup: (input: RequestOf<'POST /two-factor/setup'> = {}) => call('POST /two-factor/setup', input, 'session'),
      /**
       * Turns it on with the app's current code and `emailCode`, the code setup mailed (10 minutes;
       * the fifth wrong one kills it); answers the ten recovery codes, once. Other sessions end.
       */
      enable: (input: RequestOf<'POST /two-factor/enable'>) => call('POST /two-factor/enable', input, 'session'),
      /** `code`: a code from the app or an unused recovery code. */
      disable: (input: RequestOf<'POST /two-factor/disable'>) => call('POST /two-factor/disable', input, 'session'),
      /** A fresh set of ten recovery codes; the old set stops working. `code`: a code from the app. */
      regenerateRecoveryCodes: (input: RequestOf<'POST /two-factor/recovery-codes'>) =>
        call('POST /two-factor/recovery-codes', input, 'session'),
    },
    /**
     * `currentPassword` may be left out on a session that signed in recently (see {@link reauth});
     * `code` (a code from the app or an unused recovery code) is required while two-factor is on.
     */
    async deleteAccount(input: RequestOf<'POST /delete-account'> = {}): Promise<void> {
      await call('POST /delete-account', input, 'session')
      core.ended()
    },
  }
}
