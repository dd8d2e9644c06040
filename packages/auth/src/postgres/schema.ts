/**
 * Drizzle schema of the PostgreSQL store: the same tables as the SQLite store, plus the shared
 * rate-limit counters. Migrations under `drizzle/postgres` are generated from it.
 */
import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const users = pgTable('auth_users', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  role: text('role'),
  /**
   * Bumped by every change of the password (and later the email): a login creates its session,
   * and a re-hash writes its hash, only while the version it verified is still current.
   */
  credentialsVersion: integer('credentials_version').notNull().default(0),
  createdAt: at('created_at').notNull(),
})

export const sessions = pgTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: at('created_at').notNull(),
    refreshedAt: at('refreshed_at').notNull(),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
)

/** Every refresh value a session ever had, so a rotated-away value is recognised as reuse. */
export const refreshTokens = pgTable(
  'auth_refresh_tokens',
  {
    hash: text('hash').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    createdAt: at('created_at').notNull(),
    rotatedAt: at('rotated_at'),
  },
  (t) => [index('auth_refresh_tokens_session_idx').on(t.sessionId)],
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
