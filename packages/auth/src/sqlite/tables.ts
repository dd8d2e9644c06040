/**
 * The core tables of the SQLite store: accounts, sessions, mailed tokens, devices. Each
 * feature keeps its own tables in its folder; `schema.ts` lists them all.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import type { AuthMethod } from '../store/types.js'

/** A timestamp column as the SQLite store keeps them. */
export const tsMs = (name: string) => integer(name, { mode: 'timestamp_ms' })

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
