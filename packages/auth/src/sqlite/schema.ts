/** Drizzle schema of the SQLite store. Migrations under `drizzle/sqlite` are generated from it. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const users = sqliteTable('auth_users', {
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
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
})

export const sessions = sqliteTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    refreshedAt: integer('refreshed_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
)

/** Every refresh value a session ever had, so a rotated-away value is recognised as reuse. */
export const refreshTokens = sqliteTable(
  'auth_refresh_tokens',
  {
    hash: text('hash').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    rotatedAt: integer('rotated_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('auth_refresh_tokens_session_idx').on(t.sessionId)],
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
