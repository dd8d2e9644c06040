/**
 * The keys an auth endpoint may count (docs/reference/limits.md#keys), as one named set: a route
 * lists the ones it counts (`limit: { name, keys: [limitBy.ip, limitBy.email()] }`) and the route
 * builder (`route-builder.ts`) counts them before validation. Each key reads what the builder
 * already has: the client address, the route's peek at the body, the signed-in user, and the
 * subject its lookup found (a token's or a challenge's owner, a known device, a refresh cookie's
 * session). Nothing here parses a body or asks a store.
 */
import type { Context } from 'hono'
import { rateLimitAddress } from './credentials.js'
import { canonicalEmail } from './email.js'
import type { ResolvedOptions } from './options.js'
import type { Limit } from './rate-limit.js'

/**
 * What a request was found to concern before its limit ran, by the route's lookup. Every field
 * is optional: a key whose value is missing does not count (the others still do).
 */
export interface Subject {
  /** The account (a token's owner, a challenge's account, a known device's account). */
  userId?: string
  /** The email of that account (of a sign-up by email: the address, which has none yet). */
  email?: string
  /** A browser the account has signed in from (login, email-sign-in, forgot-password): counted instead of the body's email. */
  deviceHash?: string
  /** The session a refresh cookie names (its id, or the value's hash for one without). */
  session?: string
}

/** What a key reads: all of it was parsed or looked up once, by the route builder. */
export interface LimitFacts {
  c: Context
  /** The route's peek at the body: the fields it declared, each `undefined` unless it had the declared type. */
  peek: Readonly<Record<string, unknown>>
  /** The signed-in user on a guarded route; `null` on a public one. */
  userId: string | null
  subject: Subject | null
}

/** One key of the named set: its kind (the name in the `RateLimit` header), its limit, its value for a request. */
export interface LimitKey {
  kind: 'ip' | 'email' | 'user' | 'device' | 'session'
  limit(options: ResolvedOptions): Limit
  /** `null`: the request has no such key (no email in the body); it counts on the others. */
  valueOf(facts: LimitFacts, options: ResolvedOptions): string | null
  /** The answer when this key refuses, instead of the 429 (email sign-in's codes: its one 401). */
  refusal?: () => Error
}

// IPv6 clients count per /64 by default: one host holds a whole prefix.
const address = ({ c }: LimitFacts, options: ResolvedOptions) => rateLimitAddress(options.clientAddress(c), options.ipv6Prefix)

/** The canonical form of the body's `field` when it is a string, valid or not (docs/reference/limits.md#keys). */
const bodyEmail =
  (field: string) =>
  ({ peek, subject }: LimitFacts): string | null => {
    // A request from a browser the account knows counts on its device, not on the email.
    if (subject?.deviceHash) return null
    const value = peek[field]
    return typeof value === 'string' ? canonicalEmail(value) : null
  }

/** The keys of docs/reference/limits.md#keys. */
export const limitBy = {
  /** The client address (docs/reference/limits.md#client-address). */
  ip: { kind: 'ip', limit: (o) => o.ipLimit, valueOf: address },
  /** The client address, with refresh's numbers. */
  refreshIp: { kind: 'ip', limit: (o) => o.refreshIpLimit, valueOf: address },
  /** The canonical email in the body's `field` (default `email`), unless the subject is a known device. */
  email: (field = 'email'): LimitKey => ({ kind: 'email', limit: (o) => o.emailLimit, valueOf: bodyEmail(field) }),
  /** The email of the subject's account: a mailed token's owner, while the token is live. */
  ownerEmail: { kind: 'email', limit: (o) => o.emailLimit, valueOf: ({ subject }) => subject?.email ?? null },
  /** The signed-in user, or the subject's account (a challenge's). */
  user: { kind: 'user', limit: (o) => o.userLimit, valueOf: ({ userId, subject }) => userId ?? subject?.userId ?? null },
  /**
   * The subject's account when the body's `password` is to be checked against it (verify-email):
   * counted as every endpoint that verifies a password counts its account.
   */
  passwordOwner: {
    kind: 'user',
    limit: (o) => o.userLimit,
    valueOf: ({ peek, subject }) => (typeof peek.password === 'string' ? (subject?.userId ?? null) : null),
  },
  /** A browser the subject's account has signed in from (the routes keyed by an email: `known-device.ts`). */
  device: {
    kind: 'device',
    limit: (o) => o.deviceLimit,
    valueOf: ({ subject }) => (subject?.deviceHash && subject.userId ? `${subject.userId}:${subject.deviceHash}` : null),
  },
  /**
   * The codes tried on email sign-in flows, per the flow's account (a sign-up's: per its address),
   * refused as `refusal` answers (docs/reference/email-sign-in.md#signing-in).
   */
  codes: (refusal: () => Error): LimitKey => ({
    kind: 'user',
    limit: (o) => o.userLimit,
    valueOf: ({ subject }) => subject?.userId ?? subject?.email ?? null,
    refusal,
  }),
  /** The session a refresh cookie names. */
  session: { kind: 'session', limit: (o) => o.refreshSessionLimit, valueOf: ({ subject }) => subject?.session ?? null },
} satisfies Record<string, LimitKey | ((arg: never) => LimitKey)>

/** What a limited endpoint counts: its name (in `RateLimit-Policy` and the `rate_limited` event) and its keys. */
export interface RouteLimit {
  name: string
  keys: readonly LimitKey[]
}
