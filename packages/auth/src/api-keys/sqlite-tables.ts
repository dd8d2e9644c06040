/** The SQLite tables of API keys (docs/guide/api-keys.md): `sqlite/schema.ts` lists them with the others. */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tsMs, users } from '../sqlite/tables.js'

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
