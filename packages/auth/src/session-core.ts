/**
 * The session core: the one object the guard and the routes ask about sessions. It opens a
 * session (signup, login) and records a new proof (re-authentication), finds the live session an
 * access token names, lists a user's sessions and ends or revokes them. Stores keep facts; the
 * rules are in the modules it composes: lifetimes (`session-lifetimes.ts`), what a refresh value
 * means (`refresh-rotation.ts`, `session-refresh.ts`), what a session hands out (`session-issue.ts`)
 * and a proof's methods and freshness (`session-proof.ts`).
 */

import type { Context } from 'hono'
import type { AccessClaims, AccessTokens } from './access-token.js'
import { isDisabled } from './account-disabled.js'
import type { RefreshCookie, RefreshValues } from './cookies.js'
import { type ClientAddress, requestFacts } from './credentials.js'
import type { Notifier } from './notify.js'
import { opaqueToken, tokenHash } from './opaque-token.js'
import { sessionIssue } from './session-issue.js'
import { type SessionLifetimes, sessionRemainingMs } from './session-lifetimes.js'
import { sessionRefresh } from './session-refresh.js'
import type { AuthMethod, LiveSession, Store, UserRecord } from './store/types.js'
import { userJson } from './user-json.js'

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
  const issue = sessionIssue({ tokens, cookie, lifetimes, accessTokenTtl })
  const { tokenBody, setCookie } = issue

  /** Stores the session and sets its cookie: what {@link start} and {@link open} share. */
  const openSession = async (c: Context, user: U, credentialsVersion: number, amr: AuthMethod[]) => {
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
    return { sessionId: session.id, at }
  }

  return {
    lifetimes,

    /**
     * The session verified access-token claims name, with its user as stored now, in one
     * lookup: `null` when it was revoked, has outlived its lifetimes, or belongs to someone else.
     */
    async current(claims: AccessClaims): Promise<{ session: LiveSession; user: U } | null> {
      const found = await store.findSession(claims.sid)
      if (!found || found.session.userId !== claims.sub || sessionRemainingMs(found.session, now(), lifetimes) <= 0) return null
      // A disabled account has no sessions (disabling revoked them); this only backs that up.
      if (isDisabled(found.user)) return null
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
      const opened = await openSession(c, user, credentialsVersion, amr)
      if (!opened) return null
      const body = await tokenBody(user.id, opened.sessionId, { authenticatedAt: opened.at, amr })
      return { sessionId: opened.sessionId, body: { ...body, user: userJson(user) } }
    },

    /**
     * As {@link start}, without the access token and the user's JSON: for a sign-in that answers
     * with a redirect (a provider's callback), whose browser refreshes to get its first token.
     */
    async open(c: Context, user: U, credentialsVersion: number, amr: AuthMethod[]) {
      const opened = await openSession(c, user, credentialsVersion, amr)
      return opened && { sessionId: opened.sessionId }
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

    ...sessionRefresh({ store, cookie, values, lifetimes, now, issue }),

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
