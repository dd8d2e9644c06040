/**
 * The dependencies every route shares, wired once by `createAuth`. Internal: not exported
 * from the package.
 */
import { randomUUID } from 'node:crypto'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import type { AccessTokens } from './access-token.js'
import { type RefreshCookie, refreshValue } from './cookies.js'
import type { GuardEnv } from './guard.js'
import { peekJson } from './http.js'
import { opaqueToken, tokenHash } from './opaque-token.js'
import type { ResetMail, ResolvedOptions } from './options.js'
import type { PasswordHasher } from './password.js'
import type { KeyRule, rateLimiter } from './rate-limit.js'
import { emailFromBody } from './schemas.js'
import type { Store, UserRecord } from './store/types.js'

export interface Kit<U extends UserRecord = UserRecord> {
  store: Store<U>
  hasher: PasswordHasher
  /** Verified against when the email is unknown, so both login paths cost one verification. */
  decoy: Promise<string>
  tokens: AccessTokens
  options: ResolvedOptions
  limit: ReturnType<typeof rateLimiter>
  /** The client address as the rate limits count it (IPv6 per /64 by default). */
  ipOf: (c: Context) => string
  guard: (auth: true) => MiddlewareHandler<GuardEnv<U>>
  cookie: RefreshCookie
  sendMail: (mail: ResetMail) => void | Promise<void>
  /**
   * Runs `task` after the current answer has been decided (a timer turn later), so its work
   * cannot change the answer's status, body or timing. A failure is logged by name only.
   */
  background: (what: string, task: () => Promise<void>) => void
}

export type AuthApp = OpenAPIHono

/** The per-address key every limited endpoint counts. */
export const ipRule = (kit: Kit, limit = kit.options.ipLimit): KeyRule => ({ kind: 'ip', limit, valueOf: kit.ipOf })

/** The limits of an endpoint keyed on an email (signup, login, forgot- and reset-password). */
export const limitOnEmail = (kit: Kit, endpoint: string, emailOf: KeyRule['valueOf']): MiddlewareHandler =>
  kit.limit(endpoint, [ipRule(kit), { kind: 'email', limit: kit.options.emailLimit, valueOf: emailOf }])

/** The limits of an endpoint whose body carries the `email` to key on (signup, login, forgot-password). */
export const limitOnBodyEmail = (kit: Kit, endpoint: string): MiddlewareHandler =>
  limitOnEmail(kit, endpoint, async (c) => emailFromBody(await peekJson(c)))

/**
 * The limits of an endpoint that verifies a signed-in user's password (CONTRACT §14): per user,
 * counted per endpoint, and per address. It runs after the guard (401 comes before 429).
 */
export const limitPerUser = (kit: Kit, endpoint: string): MiddlewareHandler =>
  kit.limit(endpoint, [
    ipRule(kit),
    { kind: 'user', limit: kit.options.userLimit, valueOf: (c) => (c.var as { user?: { id: string } }).user?.id ?? null },
  ])

export const userJson = (user: UserRecord) => ({
  id: user.id,
  name: user.name,
  email: user.email,
  createdAt: user.createdAt.toISOString(),
})

/** Seconds the refresh cookie should live: the sooner of the idle and the absolute deadline. */
export const refreshMaxAge = (options: ResolvedOptions, session: { createdAt: Date }, now: Date): number =>
  Math.min(options.sessionIdleMs, session.createdAt.getTime() + options.sessionAbsoluteMs - now.getTime()) / 1000

export const accessTokenBody = async (kit: Kit, sub: string, sid: string) => ({
  accessToken: await kit.tokens.sign({ sub, sid }),
  tokenType: 'Bearer' as const,
  expiresIn: kit.options.accessTokenTtl,
})

/**
 * Opens a session for a user (signup, login): stores the refresh hash, sets its cookie, signs an
 * access token. `null`, with nothing stored or set, when the user's credentials version is no
 * longer `credentialsVersion`: the password that was verified has been replaced meanwhile.
 */
export const startSession = async (kit: Kit, c: Context, user: UserRecord, credentialsVersion: number) => {
  const now = kit.options.now()
  const sessionId = randomUUID()
  const refresh = opaqueToken()
  const created = await kit.store.createSession({
    id: sessionId,
    userId: user.id,
    refreshHash: tokenHash(refresh),
    now,
    credentialsVersion,
  })
  if (!created) return null
  kit.cookie.set(c, refreshValue(sessionId, refresh), refreshMaxAge(kit.options, { createdAt: now }, now))
  return { ...(await accessTokenBody(kit, user.id, sessionId)), user: userJson(user) }
}
