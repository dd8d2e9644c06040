/**
 * Which keys each auth endpoint counts (docs/reference/limits.md#rate-limits), built once from the options: per
 * client address everywhere, per email where a request names an account (per known device instead on login), per user where a
 * signed-in user's password is verified, per session on refresh.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { peekJson } from './body.js'
import { rateLimitAddress } from './credentials.js'
import { emailFromBody } from './email.js'
import type { ResolvedOptions } from './options.js'
import { type KeyRule, type RateLimitStore, rateLimiter } from './rate-limit.js'

/**
 * The account a limited request was found to concern before its limit ran (a token's or a
 * challenge's owner), so the `rate_limited` event names it (docs/reference/lifecycle.md#events: `userId` whenever it is
 * known). Kept by the keys below that look an account up.
 */
const accounts = new WeakMap<Context, string>()
export const accountOf = (c: Context): string | undefined => (c.var as { user?: { id: string } }).user?.id ?? accounts.get(c)

/** The owner of a mailed token or a challenge, as a limit's key finds it. */
export type Owner = { userId: string; email: string } | null

/** The browser of a login when the account it names has signed in from it before (its signed device cookie). */
export type KnownDevice = { userId: string; deviceHash: string } | null

export interface RouteLimits {
  /** Signup, forgot-password: per address and per the `email` of the body. */
  onBodyEmail(endpoint: string): MiddlewareHandler
  /**
   * Login: per address, and per the `email` of the body, except from a browser the account knows
   * (`knownDevice`, memoised per request): that one counts per device instead, so failures from
   * elsewhere never refuse the owner's known browser (docs/guide/account-protection.md).
   */
  login(knownDevice: (c: Context) => Promise<KnownDevice>): MiddlewareHandler
  /**
   * Per address and per the email of the account `ownerOf` finds: a mailed token's owner
   * (reset-password, verify-email, confirm-email).
   */
  onOwner(endpoint: string, ownerOf: (c: Context) => Promise<Owner>): MiddlewareHandler
  /**
   * An endpoint that verifies a signed-in user's password: per user and per address, and per
   * the email `emailOf` finds when given (change-email: the new address). It runs after the
   * guard (401 before 429).
   */
  perUser(endpoint: string, emailOf?: KeyRule['valueOf']): MiddlewareHandler
  /** Per address and per the account `userOf` finds (two-factor verify: the challenge's owner). */
  perAccount(endpoint: string, userOf: (c: Context) => Promise<string | null>): MiddlewareHandler
  /** Per address only (email sign-in verify: its flow counts its own tries). */
  perAddress(endpoint: string): MiddlewareHandler
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
  const email = (of: KeyRule['valueOf']): KeyRule => ({ kind: 'email', limit: options.emailLimit, valueOf: of })
  const user = (of: KeyRule['valueOf']): KeyRule => ({ kind: 'user', limit: options.userLimit, valueOf: of })
  /** `userId`, kept as the account of the request. */
  const noted = (c: Context, userId: string | null | undefined) => {
    if (userId) accounts.set(c, userId)
    return userId
  }
  return {
    onBodyEmail: (endpoint) => limit(endpoint, [ip(), email(async (c) => emailFromBody(await peekJson(c)))]),
    login: (knownDevice) =>
      limit('login', [
        ip(),
        email(async (c) => ((await knownDevice(c)) ? null : emailFromBody(await peekJson(c)))),
        {
          kind: 'device',
          limit: options.deviceLimit,
          valueOf: async (c) => {
            const known = await knownDevice(c)
            return known ? `${noted(c, known.userId)}:${known.deviceHash}` : null
          },
        },
      ]),
    onOwner: (endpoint, ownerOf) =>
      limit(endpoint, [
        ip(),
        email(async (c) => {
          const owner = await ownerOf(c)
          noted(c, owner?.userId)
          return owner?.email ?? null
        }),
      ]),
    perAddress: (endpoint) => limit(endpoint, [ip()]),
    perAccount: (endpoint, userOf) => limit(endpoint, [ip(), user(async (c) => noted(c, await userOf(c)) ?? null)]),
    perUser: (endpoint, emailOf) =>
      limit(endpoint, [
        ip(),
        user((c) => (c.var as { user?: { id: string } }).user?.id ?? null),
        ...(emailOf ? [email(emailOf)] : []),
      ]),
    refresh: (sessionOf) =>
      limit('refresh', [ip(options.refreshIpLimit), { kind: 'session', limit: options.refreshSessionLimit, valueOf: sessionOf }]),
  }
}
