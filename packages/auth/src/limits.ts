/**
 * Which keys each auth endpoint counts (CONTRACT §4, §14), built once from the options: per
 * client address everywhere, per email where a request names an account, per user where a
 * signed-in user's password is verified, per session on refresh.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { peekJson } from './body.js'
import { rateLimitAddress } from './credentials.js'
import type { ResolvedOptions } from './options.js'
import { type KeyRule, type RateLimitStore, rateLimiter } from './rate-limit.js'
import { emailFromBody } from './schemas.js'

/**
 * The account a request was found to concern before its limit ran (a token's or a challenge's
 * owner), so the `rate_limited` event names it (CONTRACT §9: `userId` whenever it is known).
 */
const accounts = new WeakMap<Context, string>()
export const noteAccount = (c: Context, userId: string | null | undefined) => {
  if (userId) accounts.set(c, userId)
}
export const accountOf = (c: Context): string | undefined => (c.var as { user?: { id: string } }).user?.id ?? accounts.get(c)

export interface RouteLimits {
  /** Signup, login, forgot-password: per address and per the `email` of the body. */
  onBodyEmail(endpoint: string): MiddlewareHandler
  /** Per address and per the email `emailOf` finds (reset-password: the token owner's). */
  onEmail(endpoint: string, emailOf: KeyRule['valueOf']): MiddlewareHandler
  /**
   * An endpoint that verifies a signed-in user's password: per user and per address, and per
   * the email `emailOf` finds when given (change-email: the new address). It runs after the
   * guard (401 before 429).
   */
  perUser(endpoint: string, emailOf?: KeyRule['valueOf']): MiddlewareHandler
  /** Per address and per the account `userOf` finds (two-factor verify: the challenge's owner). */
  perAccount(endpoint: string, userOf: KeyRule['valueOf']): MiddlewareHandler
  /** `POST /refresh`: per session (`sessionOf`: the id the cookie names, or the value's hash) and per address. */
  refresh(sessionOf: KeyRule['valueOf']): MiddlewareHandler
}

export const routeLimits = (
  options: ResolvedOptions,
  store: RateLimitStore,
  /** Told of every refusal (the `rate_limited` event). */
  onRefused: (c: Context, endpoint: string) => void = () => {},
): RouteLimits => {
  const limit = rateLimiter({ store, now: options.now, onRefused })
  // IPv6 clients count per /64 by default: one host holds a whole prefix.
  const ipOf = (c: Context) => rateLimitAddress(options.clientAddress(c), options.ipv6Prefix)
  const ip = (max = options.ipLimit): KeyRule => ({ kind: 'ip', limit: max, valueOf: ipOf })
  const onEmail = (endpoint: string, emailOf: KeyRule['valueOf']) =>
    limit(endpoint, [ip(), { kind: 'email', limit: options.emailLimit, valueOf: emailOf }])
  const perAccount = (endpoint: string, userOf: KeyRule['valueOf']) =>
    limit(endpoint, [ip(), { kind: 'user', limit: options.userLimit, valueOf: userOf }])
  return {
    onEmail,
    perAccount,
    onBodyEmail: (endpoint) => onEmail(endpoint, async (c) => emailFromBody(await peekJson(c))),
    perUser: (endpoint, emailOf) => {
      const user: KeyRule = {
        kind: 'user',
        limit: options.userLimit,
        valueOf: (c) => (c.var as { user?: { id: string } }).user?.id ?? null,
      }
      return limit(endpoint, [ip(), user, ...(emailOf ? [{ kind: 'email', limit: options.emailLimit, valueOf: emailOf }] : [])])
    },
    refresh: (sessionOf) =>
      limit('refresh', [ip(options.refreshIpLimit), { kind: 'session', limit: options.refreshSessionLimit, valueOf: sessionOf }]),
  }
}
