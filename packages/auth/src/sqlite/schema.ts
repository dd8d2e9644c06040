/** Drizzle schema of the SQLite store. Migrations under `drizzle/sqlite` are generated from it. */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

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
    /** SHA-256 of the current refresh value (the part after the session id in the cookie). */
    refreshHash: text('refresh_hash'),
    /** The value it replaced, kept to tell a parallel tab (inside the race window) from reuse. */
    previousRefreshHash: text('previous_refresh_hash'),
    rotatedAt: integer('rotated_at', { mode: 'timestamp_ms' }),
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
