/**
 * Drizzle schema of the PostgreSQL store: the same tables as the SQLite store, plus the shared
 * rate-limit counters. Migrations under `drizzle/postgres` are generated from it.
 */
import { sql } from 'drizzle-orm'
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import type { AuthMethod, FirstFactor } from '../store/types.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const users = pgTable(
  'auth_users',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull().unique(),
    /** The argon2id hash; `''` for an account without a password (sign-in by email), which no password opens. */
    passwordHash: text('password_hash').notNull(),
    role: text('role'),
    /**
     * Bumped by every change of the password (and later the email): a login creates its session,
     * and a re-hash writes its hash, only while the version it verified is still current.
     */
    credentialsVersion: integer('credentials_version').notNull().default(0),
    /** Set by redeeming a verification, email-change or reset token: the mailbox is the user's. */
    /** The extra signup fields the application declared (`signupFields`), as JSON; `null` without any. */
    profile: jsonb('profile').$type<Record<string, unknown>>(),
    emailVerified: boolean('email_verified').notNull().default(false),
    createdAt: at('created_at').notNull(),
    /** When an operator disabled the account; `null` while it is enabled (docs/guide/operators.md). */
    disabledAt: at('disabled_at'),
  },
  (t) => [
    // The operators' search (docs/guide/operators.md#search): newest first, and a case-insensitive
    // prefix of the email or the name as a range of these, compared byte by byte (`C`), whatever
    // the database's collation.
    index('auth_users_created_idx').on(t.createdAt, t.id),
    index('auth_users_email_prefix_idx').on(sql`(${t.email} collate "C")`),
    index('auth_users_name_prefix_idx').on(sql`(lower(${t.name}) collate "C")`),
  ],
)

export const sessions = pgTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: at('created_at').notNull(),
    refreshedAt: at('refreshed_at').notNull(),
    /**
     * SHA-256 of the session key every refresh value of the session carries (`null` for a session
     * from before 0.2 until its next rotation): it tells a value the session issued from a made-up one.
     */
    refreshKeyHash: text('refresh_key_hash'),
    /** SHA-256 of the current refresh value (the part after the session id in the cookie). */
    refreshHash: text('refresh_hash'),
    /** The value it replaced, kept to tell a parallel tab (inside the race window) from reuse. */
    previousRefreshHash: text('previous_refresh_hash'),
    /** The `User-Agent` at login, at most 256 characters; `null` when none was sent. */
    userAgent: text('user_agent'),
    /** The client address at login, as the rate limits derive it. */
    ip: text('ip'),
    rotatedAt: at('rotated_at'),
    /**
     * The last proof of this session (signup, login, re-authentication): what `fresh` judges.
     * `null` for a session from before 0.2, read as its `created_at`.
     */
    authenticatedAt: at('authenticated_at'),
    /** The methods of that proof (RFC 8176: `pwd`, `otp`, `mfa`, …), as a JSON array; `null` before 0.2, read as `["pwd"]`. */
    amr: jsonb('amr').$type<AuthMethod[]>(),
  },
  (t) => [
    index('auth_sessions_user_idx').on(t.userId),
    uniqueIndex('auth_sessions_refresh_idx').on(t.refreshHash),
    // The sweep finds dead sessions by these without reading the table.
    index('auth_sessions_refreshed_idx').on(t.refreshedAt),
    index('auth_sessions_created_idx').on(t.createdAt),
  ],
)

export const resetTokens = pgTable(
  'auth_reset_tokens',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [index('auth_reset_tokens_user_idx').on(t.userId)],
)

/**
 * Single-use tokens mailed to prove a mailbox (docs/reference/lifecycle.md#mail): `verify-email` to the account's
 * address, `change-email` to the new one (`new_email`). SHA-256 at rest; the newest of a kind only.
 */
export const emailTokens = pgTable(
  'auth_email_tokens',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['verify-email', 'change-email'] }).notNull(),
    newEmail: text('new_email'),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [index('auth_email_tokens_user_idx').on(t.userId)],
)

/**
 * A user's second factor (docs/reference/two-factor.md#the-key-at-rest): the TOTP key sealed with AES-256-GCM (never the key),
 * `enabled_at` once confirmed (`null` while pending), and the last time step a code was accepted
 * for, so a code works once.
 */
export const twoFactors = pgTable('auth_two_factors', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  enabledAt: at('enabled_at'),
  lastStep: integer('last_step'),
  createdAt: at('created_at').notNull(),
})

/** Single-use recovery codes, SHA-256 of the user id and the code. */
export const recoveryCodes = pgTable(
  'auth_recovery_codes',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    usedAt: at('used_at'),
  },
  (t) => [index('auth_recovery_codes_user_idx').on(t.userId)],
)

/**
 * The code mailed before a credential that outlives a reset is added (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox): one per
 * account (a new one replaces it), a hash of the user id and the code, ten minutes, and dead at
 * the fifth wrong try. Spending deletes the row.
 */
export const addCredentialCodes = pgTable(
  'auth_add_credential_codes',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    failures: integer('failures').notNull().default(0),
    expiresAt: at('expires_at').notNull(),
  },
  // The sweep finds expired codes (a killed one expires within its ten minutes too) by this.
  (t) => [index('auth_add_credential_codes_expires_idx').on(t.expiresAt)],
)

/**
 * Login challenges: the password step passed for a two-factor account. SHA-256 at rest; single
 * use (`used_at` is set by the attempt that claims it and cleared again after a wrong code);
 * dead after `failures` reaches the limit or at `expires_at`.
 */
export const challenges = pgTable(
  'auth_challenges',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    credentialsVersion: integer('credentials_version').notNull(),
    /** What the first step was (`pwd`, `email`, `hwk`): the session's `amr` names it after the second. */
    firstFactor: text('first_factor').$type<FirstFactor>().notNull().default('pwd'),
    failures: integer('failures').notNull().default(0),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [index('auth_challenges_user_idx').on(t.userId), index('auth_challenges_expires_idx').on(t.expiresAt)],
)

/**
 * Sign-in by email (docs/reference/email-sign-in.md): one mail's link token and the 6-digit code
 * bound to the flow the request answered, all three as SHA-256 (the code's hash includes the
 * flow). `user_id` is the account of the address when the request came, `null` for an address
 * without one. `attempts` counts codes tried; one use (`used_at`) spends the link and the code.
 * An address keeps one pending mail per `device_hash`: one per browser the account knows, and
 * one (`null`) for every other request.
 */
export const emailSignIns = pgTable(
  'auth_email_sign_ins',
  {
    flowHash: text('flow_hash').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    codeHash: text('code_hash').notNull(),
    email: text('email').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
    /** SHA-256 of the device id when a browser the account knows asked; `null` for every other request. */
    deviceHash: text('device_hash'),
  },
  (t) => [
    uniqueIndex('auth_email_sign_ins_token_idx').on(t.tokenHash),
    index('auth_email_sign_ins_email_idx').on(t.email),
    index('auth_email_sign_ins_user_idx').on(t.userId),
    index('auth_email_sign_ins_expires_idx').on(t.expiresAt),
  ],
)

/**
 * The browsers each account has signed in from: the SHA-256 of the random id in the signed device
 * cookie, never the id. A sign-in from a device not listed here mails a `new-sign-in` notice; a
 * listed device's failed logins count on their own limit. Forgotten a year after its last sign-in.
 */
export const devices = pgTable(
  'auth_devices',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    deviceHash: text('device_hash').notNull(),
    lastSeenAt: at('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.deviceHash] }), index('auth_devices_last_seen_idx').on(t.lastSeenAt)],
)

/**
 * Passkeys (docs/reference/passkeys.md): one WebAuthn credential per row, by its credential id
 * (base64url). The COSE public key (base64url), the last signature counter, the transports the
 * authenticator reported, whether it is backed up (a synced passkey), a name its owner chose, and
 * when it was created and last used.
 */
export const passkeys = pgTable(
  'auth_passkeys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull(),
    multiDevice: boolean('multi_device').notNull().default(false),
    backedUp: boolean('backed_up').notNull().default(false),
    name: text('name').notNull(),
    createdAt: at('created_at').notNull(),
    lastUsedAt: at('last_used_at'),
  },
  (t) => [index('auth_passkeys_user_idx').on(t.userId)],
)

/**
 * WebAuthn challenges, SHA-256 at rest: single use (`used_at`, set by the one claim that wins),
 * dead at `expires_at`. `purpose` says what may answer it; `user_id` binds a registration (and a
 * second-factor step) to the user that asked, and `bound_to` a second-factor step to its login challenge.
 */
export const passkeyChallenges = pgTable(
  'auth_passkey_challenges',
  {
    hash: text('hash').primaryKey(),
    purpose: text('purpose').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    boundTo: text('bound_to'),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [index('auth_passkey_challenges_expires_idx').on(t.expiresAt)],
)

/** Fixed-window attempt counters shared by every server instance; expired rows are pruned. */
export const rateLimits = pgTable(
  'auth_rate_limits',
  {
    key: text('key').primaryKey(),
    count: integer('count').notNull(),
    resetAt: at('reset_at').notNull(),
  },
  (t) => [index('auth_rate_limits_reset_idx').on(t.resetAt)],
)

/**
 * API keys (docs/guide/api-keys.md): one personal access token per row, kept as the SHA-256 of the
 * key (never the key), with the scopes it was given, the 12 characters its list shows, and when
 * it was created, expires and was last used (written at most once a minute). A revoked key's row
 * is deleted; an expired one is deleted by the sweep 30 days after it expired.
 */
export const apiKeys = pgTable(
  'auth_api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    hash: text('hash').notNull(),
    prefix: text('prefix').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    lastUsedAt: at('last_used_at'),
  },
  (t) => [
    uniqueIndex('auth_api_keys_hash_idx').on(t.hash),
    index('auth_api_keys_user_idx').on(t.userId),
    // The sweep's: keys expired past the grace go (docs/guide/api-keys.md#expiry).
    index('auth_api_keys_expires_idx').on(t.expiresAt),
  ],
)

/**
 * Accounts at OpenID Connect and OAuth 2.0 providers linked to a user: one per (issuer, subject),
 * never keyed by the email the provider reports.
 */
export const identities = pgTable(
  'auth_identities',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The configured provider id it was linked through (`google`, `github`, …). */
    provider: text('provider').notNull(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    /** The email the provider last reported, canonical; `null` when it reported none. */
    email: text('email'),
    /** The provider's tokens, sealed under the encryption keys; `null` unless the provider has `keepTokens`. */
    sealedTokens: text('sealed_tokens'),
    createdAt: at('created_at').notNull(),
    lastUsedAt: at('last_used_at'),
  },
  (t) => [
    uniqueIndex('auth_identities_issuer_subject_idx').on(t.issuer, t.subject),
    index('auth_identities_user_idx').on(t.userId),
  ],
)

/** Sign-ins through a provider between the start and the callback: single use, ten minutes. */
export const oauthFlows = pgTable(
  'auth_oauth_flows',
  {
    /** SHA-256 of the flow cookie's value. */
    hash: text('hash').primaryKey(),
    provider: text('provider').notNull(),
    /** SHA-256 of the `state` sent to the provider. */
    stateHash: text('state_hash').notNull(),
    /** The OpenID Connect `nonce` the ID token must carry; `null` for plain OAuth 2.0. */
    nonce: text('nonce'),
    returnTo: text('return_to').notNull(),
    /** A link: the user the identity is linked to; `null` for a sign-in. */
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [index('auth_oauth_flows_expires_idx').on(t.expiresAt)],
)
