/**
 * The app's authentication: `createAuth` on the opened database, with the policies this app
 * registers: `admin` (`user.raw.role === 'admin'`, set with `pnpm cli set-role`) and `verified`
 * (`user.raw.emailVerified`, docs/reference/lifecycle.md#email-verification; no route of this app requires it). Every security
 * event goes to standard output as one JSON line, `{"audit":…}`.
 */
import { type Auth, createAuth, type GetConnInfo, type ProviderConfig, type SigningKey, type UserRecord } from '@latchkey/auth'
import type { AppDatabase } from './db/index.js'
import type { Mailer } from './mail.js'
import { passkeySettings } from './passkeys.js'
import { printable } from './printable.js'

/** The scopes an API key of this app may hold (docs/guide/api-keys.md), each with what it allows. */
export const SCOPES = {
  'todos:read': 'Read your todos',
  'todos:write': 'Create, change and delete your todos',
} as const

/**
 * The auth component of this app: the store's users (SQLite or PostgreSQL), the policies `admin`
 * and `verified`, and API keys with the scopes `todos:read` and `todos:write`.
 */
export type AppAuth = Auth<UserRecord, 'admin' | 'verified', keyof typeof SCOPES>

export interface AppAuthOptions {
  /** One secret, or several: the first signs access tokens, every one verifies them. */
  secret: string | readonly string[]
  /** Keys of sealed data (`AUTH_ENCRYPTION_KEY`): the first seals, every one opens. `null`: the library's fallback. */
  encryptionKeys?: readonly string[] | null
  /** `AUTH_SIGNING_KEYS`: EdDSA or ES256 private JWKs that sign access tokens instead of the secret. */
  signingKeys?: readonly SigningKey[] | null
  db: AppDatabase
  mailer: Mailer
  /** Base URL of links and of the same-origin check, without a trailing slash. */
  publicUrl: string
  production: boolean
  trustProxy: boolean
  /** `EMAIL_SIGN_UP`: an address without an account may sign up by email. Default `false`. */
  emailSignUp?: boolean
  /** `PASSKEY_RP_ID`: the passkeys' domain; `null`: `publicUrl`'s host (docs/reference/operations.md#passkeys). */
  passkeyRpId?: string | null
  /** Front ends on other origins that may use the refresh cookie (`TRUSTED_ORIGINS`); `PUBLIC_URL`'s is always trusted. */
  trustedOrigins?: readonly string[]
  /** The client address where the library cannot read Node's request itself (Bun, Deno). */
  getConnInfo?: GetConnInfo
  /** Seconds an access token lives (`ACCESS_TOKEN_TTL`, tests only). Default: the library's 900. */
  accessTokenTtl?: number | null
  /** Seconds a session stays fresh for the account's sensitive actions (`AUTH_FRESH_AGE`). Default: the library's 300. */
  freshAge?: number | null
  /** Most sessions per account (`AUTH_MAX_SESSIONS`). Default: the library's 100. */
  maxSessions?: number | null
  /** Base URL of the breached-password range API (`PWNED_PASSWORDS_URL`); `null`: no check. */
  pwnedPasswordsUrl?: string | null
  /** Social sign-in providers (`GOOGLE_CLIENT_ID`, …, `AUTH_OIDC_PROVIDERS`). */
  providers?: readonly ProviderConfig[]
  /** Unexpected errors (names and codes only). */
  log: (line: string) => void
  /** Where the audit lines go. Default: standard output. */
  audit?: (line: string) => void
  now: () => Date
}

/**
 * The `admin` policy: the role compared whole, so `admin,user` or `Admin` is not `admin`. The
 * front end asks it through `GET /admin/access` to decide whether to show the operators' screen.
 */
export const isAdmin = (user: { raw: UserRecord }): boolean => user.raw.role === 'admin'

export const createAppAuth = ({
  secret,
  encryptionKeys = null,
  signingKeys = null,
  db,
  mailer,
  publicUrl,
  production,
  trustProxy,
  emailSignUp = false,
  passkeyRpId = null,
  trustedOrigins = [],
  accessTokenTtl = null,
  freshAge = null,
  maxSessions = null,
  pwnedPasswordsUrl = null,
  providers = [],
  getConnInfo,
  log,
  audit = (line) => console.log(line),
  now,
}: AppAuthOptions): AppAuth => {
  const { passkeys, reason } = passkeySettings(publicUrl, passkeyRpId, trustedOrigins)
  if (reason !== null) log(`passkeys are off: ${reason}`)
  return createAuth({
    secret,
    ...(encryptionKeys ? { encryptionKeys } : {}),
    ...(signingKeys ? { signingKeys } : {}),
    store: db.authStore,
    // On PostgreSQL the counts live in the database, so every instance counts against one limit.
    ...(db.rateLimitStore ? { rateLimit: { store: db.rateLimitStore } } : {}),
    sendMail: (mail) => mailer.send(mail),
    // An event holds no secret (docs/reference/lifecycle.md#events). What a client sent (the User-Agent) is escaped:
    // JSON.stringify leaves DEL, C1 controls and U+2028/9 raw, which could drive a terminal.
    onEvent: (event) => audit(printable(JSON.stringify({ audit: event }))),
    policies: { admin: isAdmin, verified: (user) => user.raw.emailVerified },
    apiKeys: { scopes: SCOPES },
    // The operators' routes under /auth/admin (docs/guide/operators.md), for the `admin` role.
    admin: { policy: 'admin' },
    publicUrl,
    trustProxy,
    emailSignIn: { signUp: emailSignUp },
    ...(passkeys ? { passkeys } : {}),
    trustedOrigins,
    ...(accessTokenTtl === null ? {} : { accessTokenTtl }),
    ...(freshAge === null ? {} : { freshAge }),
    ...(maxSessions === null ? {} : { maxSessions }),
    ...(pwnedPasswordsUrl === null ? {} : { breachedPasswords: { url: pwnedPasswordsUrl } }),
    ...(providers.length > 0 ? { providers } : {}),
    ...(getConnInfo ? { getConnInfo } : {}),
    secureCookies: production || publicUrl.startsWith('https:'),
    log,
    now,
  })
}
