/**
 * What a presented refresh cookie value does: spend it for the next one (`POST /refresh`), end its
 * session (logout with the cookie alone), or, read only, name the live session's holder. The
 * verdict on the value is `refresh-rotation.ts`'s; this module parses the cookie (a refresh's
 * arrives parsed: its route's lookup parsed it for the limit), hands the verdict back as an answer
 * and sets or clears the cookie.
 */
import type { Context } from 'hono'
import { type PresentedRefresh, parseRefreshValue, type RefreshCookie, type RefreshValues } from './cookies.js'
import { opaqueToken, tokenHash } from './opaque-token.js'
import { isCurrentValue, rotateRefresh } from './refresh-rotation.js'
import type { SessionIssue } from './session-issue.js'
import { type SessionLifetimes, sessionRemainingMs } from './session-lifetimes.js'
import type { SessionRecord, SessionRefreshState, Store, UserRecord } from './store/types.js'

export interface SessionRefreshDeps<U extends UserRecord> {
  store: Store<U>
  cookie: RefreshCookie
  /** Makes and recognises the session's refresh values. */
  values: RefreshValues
  lifetimes: SessionLifetimes
  now: () => Date
  issue: SessionIssue
}

export const sessionRefresh = <U extends UserRecord>({ store, cookie, values, lifetimes, now, issue }: SessionRefreshDeps<U>) => {
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

  return {
    /**
     * Spends the presented refresh cookie value, as `POST /refresh` parsed it once (its lookup's
     * limit key is its session). On `rotated` the new cookie is set and the new access token
     * returned; a refusal clears the cookie, except a race loser's: the winner's Set-Cookie may
     * land first.
     */
    async refresh(c: Context, parsed: PresentedRefresh) {
      const at = now()
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
        // The key stays, so its hash is the one the parse made (a new key's, for a session without one).
        nextKeyHash: parsed.keyHash ?? tokenHash(key),
        now: at,
        ...lifetimes,
      })
      if (result.status !== 'rotated') {
        if (result.status !== 'race') cookie.clear(c)
        return result.status === 'reused'
          ? ({ status: result.status, session: result.session } as const)
          : ({ status: result.status } as const)
      }
      issue.setCookie(c, result.session, key, next, at)
      return { status: result.status, body: await issue.tokenBody(result.user.id, result.session.id, result.session) } as const
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
  }
}
