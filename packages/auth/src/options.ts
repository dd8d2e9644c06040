/**
 * The options of `createAuth`, their defaults, and their validation. Everything here is checked
 * once, when the app is wired, with an error naming the option.
 */

import type { z } from 'zod'
import { type BreachCheck, type BreachedPasswordsOptions, breachCheck } from './breached-passwords.js'
import { type ClientAddress, clientAddress, type GetConnInfo } from './credentials.js'
import type { NoFields, Policy, SignupExtras } from './domain.js'
import type { AuthEvent, AuthMail } from './notify.js'
import { type PasskeyOptions, resolvePasskeyOptions } from './passkeys/options.js'
import { ARGON2_FLOOR, type Argon2Params, type PasswordHasher } from './password.js'
import type { Limit, RateLimitStore } from './rate-limit.js'
import type { SessionLifetimes } from './session-lifetimes.js'
import { type ResolvedSigningKey, resolveSigningKeys, type SigningKey } from './signing-keys.js'
import type { Store, UserRecord } from './store/types.js'

/** Names a `signupFields` schema may not use: the record's own fields. */
export const RESERVED_USER_FIELDS = [
  'id',
  'name',
  'email',
  'password',
  'passwordHash',
  'role',
  'emailVerified',
  'createdAt',
  'credentialsVersion',
  'profile',
] as const

export interface AuthOptions<U extends UserRecord, Name extends string = never, F extends z.ZodRawShape = NoFields> {
  /**
   * HMAC secret for access tokens, at least 32 characters and not trivially low-entropy. No
   * default. A list rotates secrets without signing anyone out: the first signs, every one
   * verifies, each token names its secret in its `kid` header.
   */
  secret: string | readonly string[]
  /**
   * Keys of the data the library seals (the TOTP keys), each at least 32 characters and not
   * trivially low-entropy, none of them a signing secret. A list rotates them: the first seals,
   * every one opens, and the sweep seals again under the first whatever another key sealed
   * (`auth.sealedUnderOldKeys()` counts what is left). Apart from `secret`, so rotating or
   * dropping a signing secret never touches sealed data. Without it (not recommended; logged once
   * at start) the first signing secret seals, as 0.1 did, and dropping a signing secret is only
   * safe once `sealedUnderOldKeys()` is 0.
   */
  encryptionKeys?: string | readonly string[]
  /**
   * Asymmetric keys for access tokens instead of HS256, so other services can verify them
   * (`@latchkey/verify`) from the public keys at `GET /.well-known/jwks.json` (mount
   * `auth.wellKnown` at the root). Private JWKs, EdDSA (Ed25519) or ES256 (P-256), each with a
   * unique `kid`. The first signs; every one verifies and is published, so a key listed after
   * the first is published before it signs. Once given, HS256 tokens are refused. `secret` is
   * still required: it encrypts second-factor secrets.
   *
   * @example
   * signingKeys: JSON.parse(process.env.AUTH_SIGNING_KEYS) // [{ kty: 'OKP', crv: 'Ed25519', kid: '2026-11', x, d }]
   */
  signingKeys?: readonly SigningKey[]
  store: Store<U>
  /**
   * Sends the mails the library asks for, each with a `kind` (reset and verification tokens,
   * email-change tokens to the new address, notices of changes). It runs after the answer; a
   * failure is logged without the token and never changes a response. The library never builds
   * a link and never logs a token.
   */
  sendMail: (mail: AuthMail) => void | Promise<void>
  /**
   * Receives one event per security-relevant step, after it happened (an audit log): never a
   * password, hash, token or code. A hook that throws is logged and changes nothing.
   */
  onEvent?: (event: AuthEvent) => void | Promise<void>
  /** Named policies; guard names are checked against these keys by the compiler. */
  policies?: Record<Name, Policy<U & SignupExtras<F>>>
  /**
   * Extra fields of `POST /signup` (docs/reference/endpoints.md#signup), such as `z.object({ plan: z.enum(['free', 'pro']).default('free') })`:
   * validated with the rest of the body (400 with `errors[]`), stored with the user, documented
   * in OpenAPI, and typed on `c.get('user').raw`. Fields added later should have a default or be
   * optional: older accounts get the default when they are read.
   */
  signupFields?: z.ZodObject<F>
  /** `iss` and `aud` of access tokens. Default `latchkey`. */
  issuer?: string
  audience?: string
  /** Seconds. Default 900 (15 minutes). */
  accessTokenTtl?: number
  /** Seconds a session lives after its last refresh. Default 30 days. */
  sessionIdleTtl?: number
  /** Seconds a session lives after login, however often refreshed. Default 90 days. */
  sessionAbsoluteTtl?: number
  /** Seconds during which a just-rotated refresh value is refused without revoking (parallel tabs). Default 10; 0 disables. */
  refreshReuseGrace?: number
  /**
   * Most sessions one account keeps. A sign-in past it ends the least recently used session
   * (event `session.revoked`), so a script signing in in a loop cannot pile up rows. Default 100.
   */
  maxSessions?: number
  /** Seconds a reset token lives. Default 1800. */
  resetTokenTtl?: number
  /**
   * Seconds since a session last proved its holder (signup, login, `POST /reauth`) during which
   * the library's sensitive endpoints (change-email, delete-account, two-factor setup, disable and
   * recovery-codes) take the session instead of `currentPassword`. Default 300. A whole number.
   */
  freshAge?: number
  /**
   * The second factor (docs/reference/two-factor.md). `issuer` names the account in authenticator apps (the
   * `otpauth://` URI's issuer). Default `Latchkey`.
   */
  twoFactor?: { issuer?: string }
  /**
   * Sign-in by email (docs/reference/email-sign-in.md). `signUp: true` lets an address without an
   * account sign up by email: it gets a sign-up link and code, and using one creates the account
   * (verified, without a password; its name is the address's local part). Default `false`: such
   * an address gets no mail (and the same answer).
   */
  emailSignIn?: { signUp?: boolean }
  /**
   * Refuses new passwords (signup, change-password, reset) seen in data breaches, by asking a
   * Pwned-Passwords-style range API with the first five hex characters of the password's SHA-1
   * only (k-anonymity, padded answers). `true`: the public service
   * (`https://api.pwnedpasswords.com`), 1.5 s timeout. When the service does not answer in time
   * or fails, the password is accepted and `breach_check.unavailable` is emitted. Never at login.
   * Default off.
   */
  breachedPasswords?: true | BreachedPasswordsOptions
  /**
   * Passkeys (docs/reference/passkeys.md): without this option the passkey routes are not mounted.
   * `rpId` is the domain the passkeys belong to (the site's host or a parent of it), `rpName` what
   * the browser shows, `origins` every origin whose pages may use them (each on `rpId` or a
   * subdomain of it; https, or http on localhost).
   *
   * @example
   * passkeys: { rpId: 'example.com', rpName: 'Example', origins: ['https://app.example.com'] }
   */
  passkeys?: PasskeyOptions
  /** argon2id parameters; below the OWASP floor (m=19456, t=2, p=1) construction fails. */
  argon2?: Partial<Argon2Params>
  /**
   * Replaces the argon2id hasher (tests use a fast one from `@latchkey/auth/testing`). The
   * argon2id floor (m=19456 KiB, t=2, p=1) is NOT enforced on a custom hasher: it is yours to
   * meet. `createAuth` logs once that a custom hasher is in use.
   */
  hasher?: PasswordHasher
  /**
   * Most password hashings (hash or verify, across all requests) running or waiting at once.
   * Past it a request that would hash answers 503 with `Retry-After: 1` before hashing. Default 32.
   */
  hashQueue?: number
  /** Per-IP and per-email limits of signup, login, forgot-password and reset-password. */
  rateLimit?: {
    /** Per client address, on each limited endpoint. Default 100 per 15 minutes. */
    ip?: Limit
    /** Per canonical email on signup, login, forgot- and reset-password. Default 10 per 15 minutes. */
    email?: Limit
    /**
     * A request keyed by an email (login, forgot-password, email-sign-in) from a browser the
     * account has signed in from (its device cookie): counted per that device instead of per
     * email, so a flood from elsewhere never refuses it. Default 10 per 15 minutes.
     */
    device?: Limit
    /**
     * Per signed-in user on each endpoint that verifies a password or a code (change-password,
     * two-factor setup, …), and per account on `POST /two-factor/verify`. Default 10 per 15 minutes.
     */
    user?: Limit
    /**
     * `POST /refresh`: per session (default 300 per 15 minutes: a page load every 3 s) and per
     * address (default 1,000 per 15 minutes). A refresh value cannot be guessed; these stop loops.
     */
    refresh?: { session?: Limit; ip?: Limit }
    /** IPv6 clients count per this many leading bits of their address. Default 64 (one /64). */
    ipv6Prefix?: number
    store?: RateLimitStore
  }
  /**
   * Dead sessions and spent reset tokens are deleted by a sweep every `intervalSeconds` (default
   * 600; 0 turns the timer off: call `auth.prune()` yourself), at most `batchSize` rows of a
   * table per statement (default 500).
   */
  prune?: { intervalSeconds?: number; batchSize?: number }
  /** `true` when behind exactly one trusted proxy: the client IP is the right-most `X-Forwarded-For` entry. */
  trustProxy?: boolean
  /**
   * The client address on a runtime other than Node: Hono's `getConnInfo` of its adapter
   * (`import { getConnInfo } from 'hono/bun'`, `'hono/deno'`, `'hono/cloudflare-workers'`). On
   * Node (`@hono/node-server`) the socket is read without it. On Bun, Deno and Workers
   * `createAuth` refuses to start with neither this nor `trustProxy`: every client would share
   * one rate-limit bucket, and one client could lock out everyone.
   */
  getConnInfo?: GetConnInfo
  /** Public origin of the app; foreign `Origin`s are refused for cookie-borne credentials. Default: the request's own origin. */
  publicUrl?: string
  /**
   * More origins whose front ends may send the cookie-borne credentials on unsafe methods
   * (`https://app.example.com`, `http://localhost:5173`), beside `publicUrl`'s (docs/reference/credentials.md#cross-site-requests).
   * Allow them in CORS too (`hono/cors` with `credentials: true`).
   */
  trustedOrigins?: readonly string[]
  /**
   * `SameSite` of the refresh cookie. Default `Strict`, right when the front end is on the same
   * site as the API (ports and subdomains of one site count as the same site). `None` lets a
   * front end on another site refresh; it needs `secureCookies` (https) and relies on the
   * origin check above for CSRF.
   */
  cookieSameSite?: 'Strict' | 'Lax' | 'None'
  /** `Secure` cookies with the `__Secure-` prefix. Default: on when `NODE_ENV=production` or `publicUrl` is https. */
  secureCookies?: boolean
  /** Path of the refresh cookie: where the auth routes are mounted. Default `/auth`. */
  cookiePath?: string
  /** Where unexpected failures are reported (never with a token or password). Default `console.error`. */
  log?: (message: string) => void
  /** The clock, for tests. */
  now?: () => Date
}

export interface ResolvedOptions {
  /** The signing secret first. */
  secrets: string[]
  /** The sealing key first; `null` when none was given (the signing secrets seal). */
  encryptionKeys: string[] | null
  /** The asymmetric keys, the signing one first, or `null` for HS256 under `secrets`. */
  signingKeys: ResolvedSigningKey[] | null
  issuer: string
  audience: string
  accessTokenTtl: number
  lifetimes: SessionLifetimes
  /** Most sessions per account; a sign-in past it ends the least recently used. */
  maxSessions: number
  resetTokenMs: number
  /** Seconds a session stays fresh for the sensitive endpoints. */
  freshAge: number
  /** The issuer of `otpauth://` URIs. */
  twoFactorIssuer: string
  /** Whether an address without an account may sign up by email. */
  emailSignUp: boolean
  /** `null`: passkeys are off. */
  passkeys: PasskeyOptions | null
  argon2: Argon2Params
  hashQueue: number
  ipLimit: Limit
  emailLimit: Limit
  deviceLimit: Limit
  userLimit: Limit
  refreshSessionLimit: Limit
  refreshIpLimit: Limit
  ipv6Prefix: number
  pruneIntervalMs: number
  pruneBatchSize: number
  trustProxy: boolean
  /** The client address of a request: `X-Forwarded-For` (trustProxy), `getConnInfo`, or Node's socket. */
  clientAddress: ClientAddress
  publicOrigin: string | null
  /** `publicUrl`'s origin and `trustedOrigins`; `null` when neither is set (the request's own origin is trusted). */
  trustedOrigins: ReadonlySet<string> | null
  cookieSameSite: 'Strict' | 'Lax' | 'None'
  /** The breached-password check of new passwords, or `null` when `breachedPasswords` is off. */
  breachCheck: BreachCheck | null
  /** The application's extra signup fields, or `null`. */
  signupFields: z.ZodObject | null
  secureCookies: boolean
  cookiePath: string
  log: (message: string) => void
  now: () => Date
}

const DAY = 24 * 60 * 60

/** The runtime, when it is one whose client address the library cannot read by itself. */
const nonNodeRuntime = (): { name: string; adapter: string } | null => {
  const g = globalThis as { Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } }
  if (g.Bun !== undefined) return { name: 'Bun', adapter: 'hono/bun' }
  if (g.Deno !== undefined) return { name: 'Deno', adapter: 'hono/deno' }
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return { name: 'Cloudflare Workers', adapter: 'hono/cloudflare-workers' }
  return null
}

const fail = (option: string, why: string): never => {
  throw new TypeError(`createAuth: option \`${option}\` ${why}`)
}

const positive = (option: string, value: number | undefined, fallback: number, allowZero = false): number => {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) fail(option, 'must be a positive number of seconds')
  return value
}

const positiveInteger = (option: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1) fail(option, 'must be a positive integer')
  return value
}

const ipv6Prefix = (value: number | undefined): number => {
  if (value === undefined) return 64
  if (!Number.isInteger(value) || value < 1 || value > 128) fail('rateLimit.ipv6Prefix', 'must be an integer from 1 to 128')
  return value
}

const limit = (option: string, value: Limit | undefined, fallback: Limit): Limit => {
  if (value === undefined) return fallback
  return {
    max: positiveInteger(`${option}.max`, value.max, fallback.max),
    windowSeconds: positive(`${option}.windowSeconds`, value.windowSeconds, fallback.windowSeconds),
  }
}

/** Shannon estimate of a string's information: its length times the entropy of its character frequencies. */
const estimatedBits = (s: string): number => {
  const counts = new Map<string, number>()
  let n = 0
  for (const ch of s) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1)
    n++
  }
  let bits = 0
  for (const count of counts.values()) bits -= count * Math.log2(count / n)
  return bits
}

/**
 * Why a signing secret is refused, or `null` when it is acceptable: shorter than 32 characters,
 * one short pattern repeated, or fewer than 80 bits by a character-frequency estimate (RFC 8725
 * §3.5: an HMAC key must not be guessable). Random values pass: `openssl rand -hex 16` (the
 * weakest common form) estimates at 91 bits or more, `openssl rand -base64 32` at over 170.
 */
export const secretWeakness = (secret: string): string | null => {
  if (secret.length < 32) return `must be at least 32 characters (it has ${secret.length})`
  const repeated = (secret + secret).indexOf(secret, 1) < secret.length
  if (repeated || estimatedBits(secret) < 80)
    return 'has too little entropy (a repeated character or pattern); use a random value such as `openssl rand -base64 32`'
  return null
}

/** The secrets, the signing one first; a bad one is named by its position (`secret[1]`). */
const resolveSecrets = (secret: unknown): string[] => {
  const required = 'is required (set AUTH_SECRET to a random string of at least 32 characters)'
  if (typeof secret === 'string') {
    if (secret.length === 0) fail('secret', required)
    const weakness = secretWeakness(secret)
    if (weakness) fail('secret', weakness)
    return [secret]
  }
  if (!Array.isArray(secret) || secret.length === 0) return fail('secret', required)
  const listed: readonly unknown[] = secret
  const secrets: string[] = []
  for (const [i, s] of listed.entries()) {
    if (typeof s !== 'string') return fail(`secret[${i}]`, 'must be a string')
    const weakness = secretWeakness(s)
    if (weakness) fail(`secret[${i}]`, weakness)
    if (secrets.includes(s)) fail(`secret[${i}]`, 'repeats an earlier secret')
    secrets.push(s)
  }
  return secrets
}

/**
 * The encryption keys, the sealing one first; `null` when none were given. Each is checked like a
 * signing secret, and none may be one: the point is to keep them apart.
 */
const resolveEncryptionKeys = (value: unknown, secrets: readonly string[]): string[] | null => {
  if (value === undefined) return null
  const list: readonly unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : []
  if (list.length === 0) fail('encryptionKeys', 'must be a key of at least 32 characters, or a non-empty list of them')
  const keys: string[] = []
  for (const [i, key] of list.entries()) {
    const option = typeof value === 'string' ? 'encryptionKeys' : `encryptionKeys[${i}]`
    if (typeof key !== 'string') return fail(option, 'must be a string')
    const weakness = secretWeakness(key)
    if (weakness) fail(option, weakness)
    if (keys.includes(key)) fail(option, 'repeats an earlier key')
    if (secrets.includes(key)) fail(option, 'must not be one of the signing secrets (`secret`)')
    keys.push(key)
  }
  return keys
}

const resolveBreachCheck = (option: unknown): BreachCheck | null => {
  if (option === undefined || option === false) return null
  if (option !== true && (typeof option !== 'object' || option === null))
    fail('breachedPasswords', 'must be true or { url?, timeoutMs?, fetch? }')
  return breachCheck(option as true | BreachedPasswordsOptions)
}

/** Checks the options once and fills in defaults. Throws a `TypeError` naming the bad option. */
export const resolveOptions = <U extends UserRecord, Name extends string, F extends z.ZodRawShape>(
  options: AuthOptions<U, Name, F>,
): ResolvedOptions => {
  const secrets = resolveSecrets(options?.secret)
  const encryptionKeys = resolveEncryptionKeys(options.encryptionKeys, secrets)
  if (!options.store) fail('store', 'is required (for example sqliteStore() from @latchkey/auth/sqlite)')
  if (typeof options.sendMail !== 'function')
    fail('sendMail', 'is required: a function ({ kind, to, token? }) that sends the mails the library asks for')
  for (const [name, policy] of Object.entries<unknown>(options.policies ?? {}))
    if (typeof policy !== 'function') fail(`policies.${name}`, 'must be a function (user, c) => boolean')

  const argon2 = { ...ARGON2_FLOOR, ...options.argon2 }
  for (const key of ['memoryCost', 'timeCost', 'parallelism'] as const)
    if (!Number.isInteger(argon2[key]) || argon2[key] < ARGON2_FLOOR[key])
      fail(`argon2.${key}`, `must be an integer of at least ${ARGON2_FLOOR[key]}`)

  let publicOrigin: string | null = null
  if (options.publicUrl !== undefined) {
    try {
      publicOrigin = new URL(options.publicUrl).origin
    } catch {
      fail('publicUrl', 'must be an absolute URL such as https://app.example.com')
    }
  }
  const trusted = new Set<string>(publicOrigin ? [publicOrigin] : [])
  for (const [i, entry] of (options.trustedOrigins ?? []).entries()) {
    let origin: string | null = null
    try {
      origin = new URL(entry).origin
    } catch {}
    if (origin && origin !== 'null' && origin === entry.replace(/\/$/, '')) trusted.add(origin)
    else fail(`trustedOrigins[${i}]`, 'must be an origin such as https://app.example.com (scheme, host and port only)')
  }
  const cookieSameSite = options.cookieSameSite ?? 'Strict'
  if (!['Strict', 'Lax', 'None'].includes(cookieSameSite)) fail('cookieSameSite', "must be 'Strict', 'Lax' or 'None'")
  const secureCookies =
    options.secureCookies ?? (globalThis.process?.env?.NODE_ENV === 'production' || publicOrigin?.startsWith('https:') === true)
  // Browsers drop a SameSite=None cookie that is not Secure.
  if (cookieSameSite === 'None' && !secureCookies) fail('cookieSameSite', "'None' needs secureCookies (https)")
  const signupFields = options.signupFields ?? null
  if (signupFields !== null) {
    if (typeof signupFields !== 'object' || typeof (signupFields as { shape?: unknown }).shape !== 'object')
      fail('signupFields', 'must be a zod object schema, such as z.object({ plan: z.string() })')
    for (const key of Object.keys(signupFields.shape))
      if ((RESERVED_USER_FIELDS as readonly string[]).includes(key))
        fail(`signupFields.${key}`, 'is a field of the user record itself; choose another name')
  }
  const cookiePath = options.cookiePath ?? '/auth'
  if (options.getConnInfo !== undefined && typeof options.getConnInfo !== 'function')
    fail('getConnInfo', "must be a function, Hono's getConnInfo of your runtime's adapter")
  const runtime = nonNodeRuntime()
  if (runtime && !options.trustProxy && !options.getConnInfo)
    fail(
      'getConnInfo',
      `is required on ${runtime.name}: without it the client address is unknown and every client shares one rate-limit bucket. Pass \`getConnInfo\` from '${runtime.adapter}' (or trustProxy: true behind exactly one proxy)`,
    )
  const twoFactorIssuer = options.twoFactor?.issuer ?? 'Latchkey'
  // The issuer is the label's prefix (`Issuer:account`): a colon would end it early.
  if (typeof twoFactorIssuer !== 'string' || !/^[^:]{1,64}$/.test(twoFactorIssuer))
    fail('twoFactor.issuer', 'must be 1 to 64 characters without a colon')
  if (!cookiePath.startsWith('/')) fail('cookiePath', 'must start with /')
  const emailSignUp = options.emailSignIn?.signUp ?? false
  if (typeof emailSignUp !== 'boolean') fail('emailSignIn.signUp', 'must be true or false')

  return {
    secrets,
    encryptionKeys,
    signingKeys: options.signingKeys === undefined ? null : resolveSigningKeys(options.signingKeys, fail),
    issuer: options.issuer ?? 'latchkey',
    audience: options.audience ?? 'latchkey',
    accessTokenTtl: positive('accessTokenTtl', options.accessTokenTtl, 15 * 60),
    lifetimes: {
      idleMs: positive('sessionIdleTtl', options.sessionIdleTtl, 30 * DAY) * 1000,
      absoluteMs: positive('sessionAbsoluteTtl', options.sessionAbsoluteTtl, 90 * DAY) * 1000,
      graceMs: positive('refreshReuseGrace', options.refreshReuseGrace, 10, true) * 1000,
    },
    maxSessions: positiveInteger('maxSessions', options.maxSessions, 100),
    resetTokenMs: positive('resetTokenTtl', options.resetTokenTtl, 30 * 60) * 1000,
    freshAge: positiveInteger('freshAge', options.freshAge, 300),
    twoFactorIssuer,
    emailSignUp,
    passkeys: options.passkeys === undefined ? null : resolvePasskeyOptions(options.passkeys, fail),
    argon2,
    hashQueue: positiveInteger('hashQueue', options.hashQueue, 32),
    ipLimit: limit('rateLimit.ip', options.rateLimit?.ip, { max: 100, windowSeconds: 15 * 60 }),
    emailLimit: limit('rateLimit.email', options.rateLimit?.email, { max: 10, windowSeconds: 15 * 60 }),
    deviceLimit: limit('rateLimit.device', options.rateLimit?.device, { max: 10, windowSeconds: 15 * 60 }),
    userLimit: limit('rateLimit.user', options.rateLimit?.user, { max: 10, windowSeconds: 15 * 60 }),
    refreshSessionLimit: limit('rateLimit.refresh.session', options.rateLimit?.refresh?.session, {
      max: 300,
      windowSeconds: 15 * 60,
    }),
    refreshIpLimit: limit('rateLimit.refresh.ip', options.rateLimit?.refresh?.ip, { max: 1000, windowSeconds: 15 * 60 }),
    ipv6Prefix: ipv6Prefix(options.rateLimit?.ipv6Prefix),
    pruneIntervalMs: positive('prune.intervalSeconds', options.prune?.intervalSeconds, 600, true) * 1000,
    pruneBatchSize: positiveInteger('prune.batchSize', options.prune?.batchSize, 500),
    trustProxy: options.trustProxy ?? false,
    clientAddress: clientAddress(options.trustProxy ?? false, options.getConnInfo),
    publicOrigin,
    trustedOrigins: trusted.size > 0 ? trusted : null,
    cookieSameSite,
    breachCheck: resolveBreachCheck(options.breachedPasswords),
    signupFields: signupFields as z.ZodObject | null,
    secureCookies,
    cookiePath,
    log: options.log ?? ((message) => console.error(message)),
    now: options.now ?? (() => new Date()),
  }
}
