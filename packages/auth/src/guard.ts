/**
 * The guard: credential → JWT → live session → user → freshness → policy. One store lookup per
 * request yields both the session (so revocation is immediate, and freshness is judged on its
 * last proof) and the user as stored now (so a role change applies to the very next request).
 * A value in the `Authorization` header that a feature's credential recognizes (an `lk_` API key,
 * `header-credential.ts`) is that credential instead: one lookup yields it and its user, then the
 * route's scope decides (docs/guide/api-keys.md#using-a-key).
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AccessTokens } from './access-token.js'
import { crossSiteRefused, isCrossSiteUnsafe, readCredential } from './credentials.js'
import type { AuthUser, Policy } from './domain.js'
import { AuthError, errorSummary, reauthenticationRequired } from './errors.js'
import type { HeaderCredential, KeyAcceptance } from './header-credential.js'
import type { ResolvedOptions } from './options.js'
import type { SessionCore } from './session-core.js'
import { isFresh } from './session-proof.js'
import type { AuthMethod, UserRecord } from './store/types.js'

/** A signed-in session's access token: what `c.get('credential')` is on a route that takes no API keys. */
export interface SessionCredential {
  kind: 'session'
  sessionId: string
  amr: AuthMethod[]
}

/** An API key (docs/guide/api-keys.md): its id and the scopes it was given. */
export interface ApiKeyCredential {
  kind: 'api-key'
  keyId: string
  scopes: string[]
}

/** What authenticated the request, for handlers and policies that treat the two apart. */
export type GuardCredential = SessionCredential | ApiKeyCredential

/** What a guarded handler can read from `c.var`. */
export interface GuardVariables<U extends UserRecord = UserRecord> {
  user: AuthUser<U>
  /** What authenticated the request: on a route without `scope`, always a session. */
  credential: SessionCredential
  /** Id of the session the access token belongs to. */
  sessionId: string
  /** When the session last proved its holder (signup, login, re-authentication): a refresh does not move it. */
  authenticatedAt: Date
  /** The methods of that proof (RFC 8176: `pwd`, `otp`, `mfa`, …). */
  amr: AuthMethod[]
}

/**
 * `c.var` of a route with a `scope`, which API keys may call: the session's facts are `null`
 * when a key authenticated the request (`credential.kind === 'api-key'`).
 */
export interface ScopedGuardVariables<U extends UserRecord = UserRecord> {
  user: AuthUser<U>
  credential: GuardCredential
  sessionId: string | null
  authenticatedAt: Date | null
  amr: AuthMethod[] | null
}

/** The guard's env: with a scope (`S` a scope name), API keys may have authenticated the request. */
export type GuardEnv<U extends UserRecord = UserRecord, S extends string = never> = {
  Variables: [S] extends [never] ? GuardVariables<U> : ScopedGuardVariables<U>
}

const refused = () =>
  new AuthError('unauthorized', {
    detail: 'The access token is invalid, expired or revoked.',
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  })

const missing = () =>
  new AuthError('unauthorized', { detail: 'Sign in to use this route.', headers: { 'WWW-Authenticate': 'Bearer' } })

export const toAuthUser = <U extends UserRecord>(raw: U): AuthUser<U> => ({ id: raw.id, name: raw.name, email: raw.email, raw })

export interface GuardDeps<U extends UserRecord> {
  sessions: SessionCore<U>
  /** The features' credentials in the `Authorization` header (API keys when they are on); every other value is an access token. */
  credentials: readonly HeaderCredential<U>[]
  tokens: AccessTokens
  options: ResolvedOptions
  policies: Record<string, Policy<U>>
}

/** What `auth.optional()` sets: the signed-in user and session, or `null` for both. */
export interface OptionalVariables<U extends UserRecord = UserRecord> {
  user: AuthUser<U> | null
  sessionId: string | null
}

export type OptionalEnv<U extends UserRecord = UserRecord> = { Variables: OptionalVariables<U> }

/** The signed-in user of a verified access token. */
export interface Identity<U extends UserRecord> {
  user: AuthUser<U>
  sessionId: string
  /** When the session last proved its holder, and how (as the guard sets them). */
  authenticatedAt: Date
  amr: AuthMethod[]
}

/** What a guard demands besides a signed-in user. */
export interface GuardOptions<S extends string = string> {
  /**
   * The session must have proven its holder at most this many seconds ago (a whole number, at
   * least 1); otherwise 401 `reauthentication_required` with RFC 9470's challenge, and the client
   * re-authenticates (`POST /auth/reauth`) and retries. An API key never passes it (403 `session_required`).
   */
  fresh?: number
  /**
   * The scope an API key needs to call the route (one the `apiKeys` option declares). Without
   * it the route takes no keys (403 `insufficient_scope`); a session has every scope.
   */
  scope?: S
}

/** The library's own routes also say which keys they take (`session`: none; `me`: any). */
export type InternalGuardOptions = GuardOptions & { keys?: KeyAcceptance }

/** `fresh` as given, checked once when the route is built. */
export const checkFresh = (fresh: unknown): number | undefined => {
  if (fresh === undefined) return undefined
  if (typeof fresh !== 'number' || !Number.isInteger(fresh) || fresh < 1)
    throw new TypeError(`createAuth: \`fresh\` must be a whole number of seconds of at least 1, got ${String(fresh)}`)
  return fresh
}

/**
 * Credential → JWT → live session → user, shared by the guard, `auth.optional()` and
 * `auth.verify()`. The extra signup fields get their schema's defaults for accounts stored before
 * a field existed.
 */
export const makeIdentity = <U extends UserRecord>({
  sessions,
  tokens,
  options,
}: Omit<GuardDeps<U>, 'policies' | 'credentials'>) => {
  const fields = options.signupFields
  const withSignupDefaults = (raw: U): U => {
    if (!fields) return raw
    const parsed = fields.safeParse(raw)
    return parsed.success ? ({ ...parsed.data, ...raw } as U) : raw
  }

  /** The user and session an access token names, or `null` when it is invalid, expired or revoked. */
  const verify = async (token: string): Promise<Identity<U> | null> => {
    const claims = await tokens.verify(token)
    if (!claims) return null
    const found = await sessions.current(claims)
    if (!found) return null
    const { authenticatedAt, amr } = found.session
    return { user: toAuthUser(withSignupDefaults(found.user)), sessionId: claims.sid, authenticatedAt, amr }
  }

  /**
   * Middleware that sets `c.get('user')` to the signed-in user or `null`, and never refuses by
   * itself. The credential order holds: the first credential present decides, so an invalid
   * `Authorization` header means nobody, whatever cookie comes with it; a cookie credential on
   * an unsafe method from a foreign origin counts as none.
   */
  const optional = (): MiddlewareHandler<OptionalEnv<U>> =>
    async function latchkeyOptional(c, next) {
      const credential = readCredential(c)
      if (credential?.source === 'query') {
        c.header('Cache-Control', 'no-store')
        c.header('Referrer-Policy', 'no-referrer')
      }
      const token = credential?.token ?? null
      const crossSite = credential?.source === 'cookie' && isCrossSiteUnsafe(c, options.trustedOrigins)
      const identity = token !== null && !crossSite ? await verify(token) : null
      c.set('user', identity?.user ?? null)
      c.set('sessionId', identity?.sessionId ?? null)
      await next()
    }

  return { verify, withSignupDefaults, optional }
}

export const makeGuard =
  <U extends UserRecord>({ sessions, tokens, options, policies, credentials }: GuardDeps<U>) =>
  (auth: true | string, guardOptions: InternalGuardOptions = {}): MiddlewareHandler<GuardEnv<U>> => {
    const policy = auth === true ? undefined : policies[auth]
    if (auth !== true && !policy)
      throw new TypeError(`createAuth: guard names the policy \`${auth}\`, which is not registered in \`policies\``)
    const fresh = checkFresh(guardOptions.fresh)
    const { scope, keys: acceptance = 'scope' } = guardOptions
    if (scope !== undefined && !options.apiKeys?.scopes.has(scope))
      throw new TypeError(`createAuth: guard names the scope \`${scope}\`, which is not declared in \`apiKeys.scopes\``)
    const { verify, withSignupDefaults } = makeIdentity({ sessions, tokens, options })
    const demand = { keys: acceptance, scope, fresh }

    return async function latchkeyGuard(c: Context<GuardEnv<U>>, next) {
      const credential = readCredential(c)
      if (credential?.source === 'query') {
        // The token is in the URL: keep it out of caches and out of the Referer of the next page.
        c.header('Cache-Control', 'no-store')
        c.header('Referrer-Policy', 'no-referrer')
      }
      if (!credential) throw missing()
      if (credential.token === null) throw refused()

      let user: AuthUser<U>
      let session: Identity<U> | null = null
      let key: ApiKeyCredential | null = null
      // Only the Authorization header carries them: an `lk_` cookie or query value is an invalid access token.
      const token = credential.token
      const other = credential.source === 'header' ? credentials.find((kind) => kind.recognizes(token)) : undefined
      if (other) {
        const found = await other.admit(token, demand)
        if (!found) throw refused()
        user = toAuthUser(withSignupDefaults(found.user))
        key = found.credential
      } else {
        session = await verify(credential.token)
        if (!session) throw refused()
        user = session.user
        // A stale session is a 401 (re-authenticate), and a 401 comes before any 403 (docs/guide/step-up.md).
        if (fresh !== undefined && !isFresh(session, options.now(), fresh)) throw reauthenticationRequired(fresh)
        if (credential.source === 'cookie' && isCrossSiteUnsafe(c, options.trustedOrigins))
          throw crossSiteRefused(c, options.trustedOrigins)
      }
      const authenticated: GuardCredential = key ?? {
        kind: 'session',
        sessionId: session?.sessionId as string,
        amr: session?.amr as AuthMethod[],
      }
      c.set('credential', authenticated as SessionCredential)

      if (policy) {
        let allowed = false
        try {
          allowed = (await policy(user, c as unknown as Context)) === true
        } catch (err) {
          options.log(`policy "${auth}" threw: ${errorSummary(err)}`)
        }
        if (!allowed) throw new AuthError('forbidden', { detail: `The "${auth}" policy refused this request.` })
      }
      c.set('user', user)
      // On a key's request the session's facts are null (ScopedGuardVariables).
      c.set('sessionId', session?.sessionId as string)
      c.set('authenticatedAt', session?.authenticatedAt as Date)
      c.set('amr', session?.amr as AuthMethod[])
      await next()
    }
  }
