/**
 * Drizzle schema of the SQLite store, tables only (the public `@latchkey/auth/sqlite/schema`).
 * Migrations under `drizzle/sqlite` are generated from it; the store's own query conditions are in
 * `queries.ts`.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import type { AuthMethod, FirstFactor } from '../store/types.js'

const tsMs = (name: string) => integer(name, { mode: 'timestamp_ms' })

export const users = sqliteTable(
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
    profile: text('profile', { mode: 'json' }).$type<Record<string, unknown>>(),
    emailVerified: integer('email_verified', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    /** When an operator disabled the account; `null` while it is enabled (docs/guide/operators.md). */
    disabledAt: integer('disabled_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    // The operators' search (docs/guide/operators.md#search): newest first, and a case-insensitive
    // prefix of the email (stored lower-cased) or of the name as a range of these. The email's own
    // index is PostgreSQL's (byte order whatever the collation), kept here so the dialects keep one shape.
    index('auth_users_created_idx').on(t.createdAt, t.id),
    index('auth_users_email_prefix_idx').on(sql`${t.email}`),
    index('auth_users_name_prefix_idx').on(sql`lower(${t.name})`),
  ],
)

export const sessions = sqliteTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    refreshedAt: integer('refreshed_at', { mode: 'timestamp_ms' }).notNull(),
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
    rotatedAt: integer('rotated_at', { mode: 'timestamp_ms' }),
    /**
     * The last proof of this session (signup, login, re-authentication): what `fresh` judges.
     * `null` for a session from before 0.2, read as its `created_at`.
     */
    authenticatedAt: integer('authenticated_at', { mode: 'timestamp_ms' }),
    /** The methods of that proof (RFC 8176: `pwd`, `otp`, `mfa`, …), as a JSON array; `null` before 0.2, read as `["pwd"]`. */
    amr: text('amr', { mode: 'json' }).$type<AuthMethod[]>(),
  },
  (t) => [
    index('auth_sessions_user_idx').on(t.userId),
    uniqueIndex('auth_sessions_refresh_idx').on(t.refreshHash),
    // The sweep finds dead sessions by these without reading the table.
    index('auth_sessions_refreshed_idx').on(t.refreshedAt),
    index('auth_sessions_created_idx').on(t.createdAt),
  ],
)

export const resetTokens = sqliteTable(
  'auth_reset_tokens',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('auth_reset_tokens_user_idx').on(t.userId)],
)

/**
 * Single-use tokens mailed to prove a mailbox (docs/reference/lifecycle.md#mail): `verify-email` to the account's
 * address, `change-email` to the new one (`new_email`). SHA-256 at rest; the newest of a kind only.
 */
export const emailTokens = sqliteTable(
  'auth_email_tokens',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['verify-email', 'change-email'] }).notNull(),
    newEmail: text('new_email'),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('auth_email_tokens_user_idx').on(t.userId)],
)

/**
 * A user's second factor (docs/reference/two-factor.md#the-key-at-rest): the TOTP key sealed with AES-256-GCM (never the key),
 * `enabled_at` once confirmed (`null` while pending), and the last time step a code was accepted
 * for, so a code works once.
 */
export const twoFactors = sqliteTable('auth_two_factors', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  enabledAt: tsMs('enabled_at'),
  lastStep: integer('last_step'),
  createdAt: tsMs('created_at').notNull(),
})

/** Single-use recovery codes, SHA-256 of the user id and the code. */
export const recoveryCodes = sqliteTable(
  'auth_recovery_codes',
  {
    hash: text('hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    usedAt: tsMs('used_at'),
  },
  (t) => [index('auth_recovery_codes_user_idx').on(t.userId)],
)

/**
 * The code mailed before a credential that outlives a reset is added (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox): one per
 * account (a new one replaces it), a hash of the user id and the code, ten minutes, and dead at
 * the fifth wrong try. Spending deletes the row.
 */
export const addCredentialCodes = sqliteTable(
  'auth_add_credential_codes',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    failures: integer('failures').notNull().default(0),
    expiresAt: tsMs('expires_at').notNull(),
  },
  // The sweep finds expired codes (a killed one expires within its ten minutes too) by this.
  (t) => [index('auth_add_credential_codes_expires_idx').on(t.expiresAt)],
)

/**
 * Login challenges: the password step passed for a two-factor account. SHA-256 at rest; single
 * use (`used_at` is set by the attempt that claims it and cleared again after a wrong code);
 * dead after `failures` reaches the limit or at `expires_at`.
 */
export const challenges = sqliteTable(
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
    expiresAt: tsMs('expires_at').notNull(),
    usedAt: tsMs('used_at'),
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
export const emailSignIns = sqliteTable(
  'auth_email_sign_ins',
  {
    flowHash: text('flow_hash').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    codeHash: text('code_hash').notNull(),
    email: text('email').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: tsMs('expires_at').notNull(),
    usedAt: tsMs('used_at'),
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
export const devices = sqliteTable(
  'auth_devices',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    deviceHash: text('device_hash').notNull(),
    lastSeenAt: tsMs('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.deviceHash] }), index('auth_devices_last_seen_idx').on(t.lastSeenAt)],
)

/**
 * Passkeys (docs/reference/passkeys.md): one WebAuthn credential per row, by its credential id
 * (base64url). The COSE public key (base64url), the last signature counter, the transports the
 * authenticator reported (JSON), whether it is backed up (a synced passkey), a name its owner
 * chose, and when it was created and last used.
 */
export const passkeys = sqliteTable(
  'auth_passkeys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    publicKey: text('public_key').notNull(),
    counter: integer('counter').notNull().default(0),
    transports: text('transports', { mode: 'json' }).$type<string[]>().notNull(),
    multiDevice: integer('multi_device', { mode: 'boolean' }).notNull().default(false),
    backedUp: integer('backed_up', { mode: 'boolean' }).notNull().default(false),
    name: text('name').notNull(),
    createdAt: tsMs('created_at').notNull(),
    lastUsedAt: tsMs('last_used_at'),
  },
  (t) => [index('auth_passkeys_user_idx').on(t.userId)],
)

/**
 * WebAuthn challenges, SHA-256 at rest: single use (`used_at`, set by the one claim that wins),
 * dead at `expires_at`. `purpose` says what may answer it; `user_id` binds a registration (and a
 * second-factor step) to the user that asked, and `bound_to` a second-factor step to its login challenge.
 */
export const passkeyChallenges = sqliteTable(
  'auth_passkey_challenges',
  {
    hash: text('hash').primaryKey(),
    purpose: text('purpose').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    boundTo: text('bound_to'),
    expiresAt: tsMs('expires_at').notNull(),
    usedAt: tsMs('used_at'),
  },
  (t) => [index('auth_passkey_challenges_expires_idx').on(t.expiresAt)],
)

/**
 * API keys (docs/guide/api-keys.md): one personal access token per row, kept as the SHA-256 of the
 * key (never the key), with the scopes it was given, the 12 characters its list shows, and when
 * it was created, expires and was last used (written at most once a minute). A revoked key's row
 * is deleted; an expired one is deleted by the sweep 30 days after it expired.
 */
export const apiKeys = sqliteTable(
  'auth_api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    hash: text('hash').notNull(),
    prefix: text('prefix').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: tsMs('created_at').notNull(),
    expiresAt: tsMs('expires_at').notNull(),
    lastUsedAt: tsMs('last_used_at'),
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
export const identities = sqliteTable(
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
    createdAt: tsMs('created_at').notNull(),
    lastUsedAt: tsMs('last_used_at'),
  },
  (t) => [
    uniqueIndex('auth_identities_issuer_subject_idx').on(t.issuer, t.subject),
    index('auth_identities_user_idx').on(t.userId),
  ],
)

/** Sign-ins through a provider between the start and the callback: single use, ten minutes. */
export const oauthFlows = sqliteTable(
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
    expiresAt: tsMs('expires_at').notNull(),
    usedAt: tsMs('used_at'),
  },
  (t) => [index('auth_oauth_flows_expires_idx').on(t.expiresAt)],
)
