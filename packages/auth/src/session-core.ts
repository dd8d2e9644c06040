/**
 * The session core: every rule about a session lives here. Its lifetimes, the refresh cookie's
 * max-age, starting a session, issuing its access tokens, and what a presented refresh value
 * means (rotate, a parallel tab's race, reuse, expiry). Stores keep facts: they read rows and
 * make conditional writes atomically; this module decides. The guard and the routes call it.
 */
import type { Context } from 'hono'
import type { AccessClaims, AccessTokens } from './access-token.js'
import { parseRefreshValue, type RefreshCookie, type RefreshValues, refreshValue } from './cookies.js'
import { type ClientAddress, requestFacts } from './credentials.js'
import type { Notifier } from './notify.js'
import { opaqueToken, tokenHash } from './opaque-token.js'
import type {
  AuthMethod,
  FirstFactor,
  LiveSession,
  SessionAuthentication,
  SessionRecord,
  SessionRefreshState,
  Store,
  UserRecord,
} from './store/types.js'
import { userJson } from './user-json.js'

export interface SessionLifetimes {
  /** A session dies when not refreshed for this long. */
  idleMs: number
  /** A session dies this long after login, however often refreshed. */
  absoluteMs: number
  /** A value rotated away less than this long ago is refused without revoking anything (parallel tabs). */
  graceMs: number
}

/** Milliseconds the session has left at `now`: the sooner of its idle and its absolute deadline. Dead at ≤ 0. */
export const sessionRemainingMs = (
  session: Pick<SessionRecord, 'createdAt' | 'refreshedAt'>,
  now: Date,
  lifetimes: SessionLifetimes,
): number =>
  Math.min(session.refreshedAt.getTime() + lifetimes.idleMs, session.createdAt.getTime() + lifetimes.absoluteMs) - now.getTime()

export type { FirstFactor }

/** The second step: a TOTP or recovery code, or a passkey. */
export type SecondFactor = 'otp' | 'hwk'

/** RFC 8176 for a passkey whose authenticator verified the user (PIN, biometrics): two factors in one. */
export const USER_VERIFIED_PASSKEY: readonly AuthMethod[] = ['hwk', 'user', 'mfa']

/**
 * The RFC 8176 methods of a proof (docs/reference/credentials.md#step-up): the first factor, the
 * second when there was one, and `mfa` when there were two.
 */
export const amrOf = (first: FirstFactor, second?: SecondFactor): AuthMethod[] =>
  second === undefined ? [first] : [first, second, 'mfa']

/**
 * Whether a session's last proof is at most `maxAgeSeconds` old at `now` (a route's `fresh`, the
 * sensitive endpoints' `freshAge`). Judged from the session record, so a re-authentication
 * freshens every access token of the session.
 */
export const isFresh = (session: SessionAuthentication, now: Date, maxAgeSeconds: number): boolean =>
  now.getTime() - session.authenticatedAt.getTime() <= maxAgeSeconds * 1000

/** The cutoffs at `now` for pruning: a session refreshed or created at or before them is dead. */
export const deadSessionCutoffs = (now: Date, lifetimes: SessionLifetimes) => ({
  deadIfRefreshedBy: new Date(now.getTime() - lifetimes.idleMs),
  deadIfCreatedBy: new Date(now.getTime() - lifetimes.absoluteMs),
})

/**
 * `rotate`: spend the value and make the next one current; `foreign`: a value this session never
 * issued (nothing happens); the others as {@link RotateResult}.
 */
export type RotationVerdict = 'rotate' | 'race' | 'reused' | 'expired' | 'foreign'

/** A presented refresh value as the session core judges it: hashes only. */
export interface PresentedHashes {
  /** SHA-256 of the value. */
  hash: string
  /** SHA-256 of the session key it carries; `null` for a value of the older forms. */
  keyHash: string | null
  /**
   * The value carries the server's mark for its session id and key (`RefreshValues#issued`): the
   * session issued it. A value with the right key but no such mark was made up by its holder.
   */
  issued: boolean
}

/** Whether `presented` carries the session's key (a session from before session keys has none). */
const carriesKey = (state: SessionRefreshState, { keyHash }: Pick<PresentedHashes, 'keyHash'>) =>
  state.refreshKeyHash !== null && keyHash === state.refreshKeyHash

/** Whether `presented` is the session's current value. */
export const isCurrentValue = (state: SessionRefreshState, presented: Omit<PresentedHashes, 'issued'>): boolean =>
  state.refreshHash === presented.hash && (state.refreshKeyHash === null || carriesKey(state, presented))

/** What a presented refresh value means for the session that the store read. */
export const judgeRotation = (
  state: SessionRefreshState,
  presented: PresentedHashes,
  now: Date,
  lifetimes: SessionLifetimes,
): RotationVerdict => {
  const { hash } = presented
  if (isCurrentValue(state, presented)) return sessionRemainingMs(state, now, lifetimes) > 0 ? 'rotate' : 'expired'
  // Two tabs refreshing at once present the same value: the second finds it just replaced.
  if (state.previousRefreshHash === hash && state.rotatedAt && now.getTime() - state.rotatedAt.getTime() < lifetimes.graceMs)
    return 'race'
  // A value this session issued earlier (it carries the session's key and the server's mark, or
  // it is the value the current one replaced): a copy of it is in someone else's hands. Anything
  // else was made up, by someone who knows the session id or even its key, and changes nothing.
  return (carriesKey(state, presented) && presented.issued) || state.previousRefreshHash === hash ? 'reused' : 'foreign'
}

export interface RotateRefreshInput extends SessionLifetimes, PresentedHashes {
  /**
   * The session the presented value names (the refresh cookie is `<session id>.<key>.<value>`), or
   * `null` for a value from before 0.2, which is looked up by its hash and can only be current.
   */
  sessionId: string | null
  /** Hash of the value that replaces it. */
  nextHash: string
  /** Hash of the session key the next value carries (the session's own, or a new one for a session without). */
  nextKeyHash: string
  now: Date
}

/**
 * Outcome of {@link rotateRefresh}. A session keeps only its key's hash, its current value's and
 * the one it replaced (one row per session, however often it refreshes):
 * - `rotated`: the presented value was current; it is now spent and `nextHash` is current.
 * - `race`: the value is the one replaced less than `graceMs` ago (parallel tabs); nothing changed.
 * - `reused`: the value is one the session issued before (presented after the race window): the
 *   whole session has been deleted.
 * - `expired`: the session is past its idle or absolute lifetime: it has been deleted.
 * - `unknown`: no such session, or a value the session never issued (nothing changed).
 */
export type RotateResult<U extends UserRecord = UserRecord> =
  | { status: 'rotated'; session: SessionRecord & SessionAuthentication; user: U }
  /** The deleted session, for the `refresh.reuse_detected` event. */
  | { status: 'reused' | 'expired'; session: SessionRecord }
  | { status: 'race' | 'unknown' }

/**
 * Spends a presented refresh value. The store's compare-and-swap is the atomic step: of
 * concurrent callers presenting one current value exactly one swaps it; every other one reads
 * the session again and is judged on what the winner left (a race inside the grace window).
 */
export const rotateRefresh = async <U extends UserRecord>(
  store: Store<U>,
  input: RotateRefreshInput,
): Promise<RotateResult<U>> => {
  const { hash, nextHash, nextKeyHash, now } = input
  const read = () => store.findRefresh(input.sessionId === null ? { currentHash: hash } : { sessionId: input.sessionId })
  // Two reads at most: after a lost swap the value is no longer current, so it cannot be judged `rotate` again.
  for (let attempt = 0; attempt < 2; attempt++) {
    const found = await read()
    if (!found) return { status: 'unknown' }
    const { session, user } = found
    const verdict = judgeRotation(session, input, now, input)
    if (verdict === 'race') return { status: 'race' }
    if (verdict === 'foreign') return { status: 'unknown' }
    if (verdict !== 'rotate') {
      await store.deleteSession(session.id)
      const { id, userId, createdAt, refreshedAt } = session
      return { status: verdict, session: { id, userId, createdAt, refreshedAt } }
    }
    if (await store.swapRefresh({ sessionId: session.id, from: hash, to: nextHash, keyHash: nextKeyHash, now }))
      return {
        status: 'rotated',
        session: {
          id: session.id,
          userId: session.userId,
          createdAt: session.createdAt,
          refreshedAt: now,
          // A refresh proves nothing new: the next token carries the same last proof.
          authenticatedAt: session.authenticatedAt,
          amr: session.amr,
        },
        user,
      }
  }
  return { status: 'race' }
}

export interface SessionCoreDeps<U extends UserRecord> {
  store: Store<U>
  tokens: AccessTokens
  cookie: RefreshCookie
  /** Makes and recognises the session's refresh values. */
  values: RefreshValues
  lifetimes: SessionLifetimes
  /** Seconds an access token lives. */
  accessTokenTtl: number
  now: () => Date
  /** The client address of a request (see `clientAddress`). */
  clientAddress: ClientAddress
  /** Most sessions per account: a new one past it ends the least recently used. */
  maxSessions: number
  /** Reports the sessions a sign-in ended (`session.revoked`). */
  notify: Notifier
}

/** A live session as its owner sees it (`GET /sessions`). */
export interface SessionView {
  id: string
  createdAt: string
  lastUsedAt: string
  /** The earlier of the idle and absolute deadlines. */
  expiresAt: string
  userAgent: string | null
  ip: string | null
  current: boolean
}

export type SessionCore<U extends UserRecord> = ReturnType<typeof sessionCore<U>>

export const sessionCore = <U extends UserRecord>({
  store,
  tokens,
  cookie,
  values,
  lifetimes,
  accessTokenTtl,
  now,
  clientAddress,
  maxSessions,
  notify,
}: SessionCoreDeps<U>) => {
  const tokenBody = async (sub: string, sid: string, { authenticatedAt, amr }: SessionAuthentication) => ({
    accessToken: await tokens.sign({ sub, sid, authenticatedAt, amr }),
    tokenType: 'Bearer' as const,
    expiresIn: accessTokenTtl,
  })
  /** The session whose CURRENT refresh value is `presented` (read only), or `null`. */
  const currentOf = async (presented: string): Promise<SessionRefreshState | null> => {
    const parsed = parseRefreshValue(presented)
    const { sessionId, hash } = parsed
    const found = await store.findRefresh(sessionId === null ? { currentHash: hash } : { sessionId })
    return found && isCurrentValue(found.session, parsed) ? found.session : null
  }
  /** The account of the live session whose current refresh value is `presented`, read only; `null` otherwise. */
  const holderOf = async (presented: string): Promise<string | null> => {
    const found = await currentOf(presented)
    return found !== null && sessionRemainingMs(found, now(), lifetimes) > 0 ? found.userId : null
  }
  const setCookie = (
    c: Context,
    session: Pick<SessionRecord, 'id' | 'createdAt' | 'refreshedAt'>,
    key: string,
    value: string,
    at: Date,
  ) => cookie.set(c, refreshValue(session.id, key, value), sessionRemainingMs(session, at, lifetimes) / 1000)

  return {
    lifetimes,

    /**
     * The session verified access-token claims name, with its user as stored now, in one
     * lookup: `null` when it was revoked, has outlived its lifetimes, or belongs to someone else.
     */
    async current(claims: AccessClaims): Promise<{ session: LiveSession; user: U } | null> {
      const found = await store.findSession(claims.sid)
      if (!found || found.session.userId !== claims.sub || sessionRemainingMs(found.session, now(), lifetimes) <= 0) return null
      return found
    },

    /**
     * Opens a session (signup, login): stores the refresh hash, ends the least recently used
     * sessions past `maxSessions`, sets its cookie, signs an access token. `amr` names the methods
     * just proven (RFC 8176). `null`, with nothing stored or set, when the user's credentials
     * version is no longer `credentialsVersion`: the password that was verified has been replaced
     * meanwhile.
     */
    async start(c: Context, user: U, credentialsVersion: number, amr: AuthMethod[]) {
      const at = now()
      const session = { id: crypto.randomUUID(), createdAt: at, refreshedAt: at }
      const key = opaqueToken()
      const value = values.next(session.id, key)
      const created = await store.createSession({
        id: session.id,
        userId: user.id,
        refreshKeyHash: tokenHash(key),
        refreshHash: tokenHash(value),
        now: at,
        credentialsVersion,
        amr,
        ...requestFacts(c, clientAddress),
      })
      if (!created) return null
      // Past the limit, the least recently used sessions end (never the new one: it is the newest).
      for (const ended of await store.trimSessions(user.id, maxSessions))
        notify.event(c, { type: 'session.revoked', userId: user.id, sessionId: ended })
      setCookie(c, session, key, value, at)
      const body = await tokenBody(user.id, session.id, { authenticatedAt: at, amr })
      return { sessionId: session.id, body: { ...body, user: userJson(user) } }
    },

    /**
     * Records a new proof for the caller's session (re-authentication): a new `authenticatedAt`
     * and `amr`, and an access token that carries them. The refresh cookie is left as it is.
     * `null` when the session is gone or the password that was verified has been replaced.
     */
    async reauthenticate(user: U, sessionId: string, credentialsVersion: number, amr: AuthMethod[]) {
      const at = now()
      if (!(await store.reauthenticate({ sessionId, userId: user.id, credentialsVersion, at, amr }))) return null
      return { ...(await tokenBody(user.id, sessionId, { authenticatedAt: at, amr })), user: userJson(user) }
    },

    /** The user's live sessions, most recently used first; `currentId` is marked `current`. */
    async list(userId: string, currentId: string): Promise<SessionView[]> {
      const at = now()
      return (await store.listSessions(userId))
        .map((s) => ({ s, remaining: sessionRemainingMs(s, at, lifetimes) }))
        .filter(({ remaining }) => remaining > 0)
        .sort((a, b) => b.s.refreshedAt.getTime() - a.s.refreshedAt.getTime() || b.s.id.localeCompare(a.s.id))
        .map(({ s, remaining }) => ({
          id: s.id,
          createdAt: s.createdAt.toISOString(),
          lastUsedAt: s.refreshedAt.toISOString(),
          expiresAt: new Date(at.getTime() + remaining).toISOString(),
          userAgent: s.userAgent,
          ip: s.ip,
          current: s.id === currentId,
        }))
    },

    /**
     * Spends the presented refresh cookie value. On `rotated` the new cookie is set and the new
     * access token returned; a refusal clears the cookie, except a race loser's: the winner's
     * Set-Cookie may land first.
     */
    async refresh(c: Context, presented: string) {
      const at = now()
      const parsed = parseRefreshValue(presented)
      const { sessionId } = parsed
      // The session keeps its key; a session from before session keys gets one now.
      const key = parsed.key ?? opaqueToken()
      // A bare value from 0.1.0 names no session, so its next value cannot carry a mark: the
      // refresh after that one marks it.
      const next = sessionId === null ? opaqueToken() : values.next(sessionId, key)
      const result = await rotateRefresh(store, {
        sessionId,
        hash: parsed.hash,
        keyHash: parsed.keyHash,
        issued: sessionId !== null && parsed.key !== null && values.issued(sessionId, parsed.key, parsed.value),
        nextHash: tokenHash(next),
        nextKeyHash: tokenHash(key),
        now: at,
        ...lifetimes,
      })
      if (result.status !== 'rotated') {
        if (result.status !== 'race') cookie.clear(c)
        return result.status === 'reused'
          ? ({ status: result.status, session: result.session } as const)
          : ({ status: result.status } as const)
      }
      setCookie(c, result.session, key, next, at)
      return { status: result.status, body: await tokenBody(result.user.id, result.session.id, result.session) } as const
    },

    /**
     * Whether `presented` is the current refresh value of a live session, read only: nothing is
     * spent, revoked or cleared (a cookie sent from another site is judged, docs/reference/conventions.md#which-error-wins:
     * an invalid one is 401 before the cross-site 403).
     */
    async isCurrent(presented: string): Promise<boolean> {
      return (await holderOf(presented)) !== null
    },

    holderOf,

    /**
     * Ends the session whose CURRENT refresh value is `presented` (logout with the cookie alone,
     * docs/reference/endpoints.md#logout), clearing the cookie. Answers the ended session, or `null` for an unknown,
     * malformed or already spent value (nothing is deleted then).
     */
    async endByRefresh(c: Context, presented: string): Promise<SessionRecord | null> {
      const found = await currentOf(presented)
      if (!found) return null
      await store.deleteSession(found.id)
      cookie.clear(c)
      const { id, userId, createdAt, refreshedAt } = found
      return { id, userId, createdAt, refreshedAt }
    },

    /** Ends the caller's own session (logout): its refresh cookie and its access tokens stop working at once. */
    async endCurrent(c: Context, sessionId: string) {
      await store.deleteSession(sessionId)
      cookie.clear(c)
    },

    /** Revokes one other session of the user; `false` when the user has no session with this id. */
    revoke(userId: string, sessionId: string): Promise<boolean> {
      return store.deleteUserSession(userId, sessionId)
    },

    /** Revokes every session of the user but `keepId`, in one step; answers the ids it revoked. */
    revokeOthers(userId: string, keepId: string): Promise<string[]> {
      return store.deleteOtherSessions(userId, keepId)
    },
  }
}
