/**
 * The guard: credential → JWT → live session → user → freshness → policy. One store lookup per
 * request yields both the session (so revocation is immediate, and freshness is judged on its
 * last proof) and the user as stored now (so a role change applies to the very next request).
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AccessTokens } from './access-token.js'
import { crossSiteRefused, isCrossSiteUnsafe, readCredential } from './credentials.js'
import type { AuthUser, Policy } from './domain.js'
import { AuthError, errorSummary, reauthenticationRequired } from './errors.js'
import type { ResolvedOptions } from './options.js'
import type { SessionCore } from './session-core.js'
import { isFresh } from './session-proof.js'
import type { AuthMethod, UserRecord } from './store/types.js'

/** What a guarded handler can read from `c.var`. */
export interface GuardVariables<U extends UserRecord = UserRecord> {
  user: AuthUser<U>
  /** Id of the session the access token belongs to. */
  sessionId: string
  /** When the session last proved its holder (signup, login, re-authentication): a refresh does not move it. */
  authenticatedAt: Date
  /** The methods of that proof (RFC 8176: `pwd`, `otp`, `mfa`, …). */
  amr: AuthMethod[]
}

export type GuardEnv<U extends UserRecord = UserRecord> = { Variables: GuardVariables<U> }

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
export interface GuardOptions {
  /**
   * The session must have proven its holder at most this many seconds ago (a whole number, at
   * least 1); otherwise 401 `reauthentication_required` with RFC 9470's challenge, and the client
   * re-authenticates (`POST /auth/reauth`) and retries.
   */
  fresh?: number
}

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
export const makeIdentity = <U extends UserRecord>({ sessions, tokens, options }: Omit<GuardDeps<U>, 'policies'>) => {
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

  return { verify, optional }
}

export const makeGuard =
  <U extends UserRecord>({ sessions, tokens, options, policies }: GuardDeps<U>) =>
  (auth: true | string, guardOptions: GuardOptions = {}): MiddlewareHandler<GuardEnv<U>> => {
    const policy = auth === true ? undefined : policies[auth]
    if (auth !== true && !policy)
      throw new TypeError(`createAuth: guard names the policy \`${auth}\`, which is not registered in \`policies\``)
    const fresh = checkFresh(guardOptions.fresh)
    const { verify } = makeIdentity({ sessions, tokens, options })

    return async function latchkeyGuard(c: Context<GuardEnv<U>>, next) {
      const credential = readCredential(c)
      if (credential?.source === 'query') {
        // The token is in the URL: keep it out of caches and out of the Referer of the next page.
        c.header('Cache-Control', 'no-store')
        c.header('Referrer-Policy', 'no-referrer')
      }
      if (!credential) throw missing()
      if (credential.token === null) throw refused()

      const identity = await verify(credential.token)
      if (!identity) throw refused()

      const { user } = identity
      // A stale session is a 401 (re-authenticate), and a 401 comes before any 403 (docs/guide/step-up.md).
      if (fresh !== undefined && !isFresh(identity, options.now(), fresh)) throw reauthenticationRequired(fresh)

      if (credential.source === 'cookie' && isCrossSiteUnsafe(c, options.trustedOrigins))
        throw crossSiteRefused(c, options.trustedOrigins)

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
      c.set('sessionId', identity.sessionId)
      c.set('authenticatedAt', identity.authenticatedAt)
      c.set('amr', identity.amr)
      await next()
    }
  }
