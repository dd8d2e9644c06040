/**
 * What a session hands its holder: the body with a new access token, and the refresh cookie whose
 * max-age is what the session has left (docs/reference/credentials.md#the-refresh-cookie).
 * Starting a session and refreshing it both end here; deciding whether they may is theirs.
 */
import type { Context } from 'hono'
import type { AccessTokens } from './access-token.js'
import { type RefreshCookie, refreshValue } from './cookies.js'
import { type SessionLifetimes, sessionRemainingMs } from './session-lifetimes.js'
import type { SessionAuthentication, SessionRecord } from './store/types.js'

export interface SessionIssueDeps {
  tokens: AccessTokens
  cookie: RefreshCookie
  lifetimes: SessionLifetimes
  /** Seconds an access token lives. */
  accessTokenTtl: number
}

export const sessionIssue = ({ tokens, cookie, lifetimes, accessTokenTtl }: SessionIssueDeps) => ({
  /** The access token of session `sid` of `sub`, carrying its last proof. */
  tokenBody: async (sub: string, sid: string, { authenticatedAt, amr }: SessionAuthentication) => ({
    accessToken: await tokens.sign({ sub, sid, authenticatedAt, amr }),
    tokenType: 'Bearer' as const,
    expiresIn: accessTokenTtl,
  }),
  /** Sets the refresh cookie `<session id>.<key>.<value>`, living as long as the session has left at `at`. */
  setCookie: (
    c: Context,
    session: Pick<SessionRecord, 'id' | 'createdAt' | 'refreshedAt'>,
    key: string,
    value: string,
    at: Date,
  ) => cookie.set(c, refreshValue(session.id, key, value), sessionRemainingMs(session, at, lifetimes) / 1000),
})

export type SessionIssue = ReturnType<typeof sessionIssue>
