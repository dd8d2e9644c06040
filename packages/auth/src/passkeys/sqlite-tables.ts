/** The SQLite tables of passkeys (docs/reference/passkeys.md): `sqlite/schema.ts` lists them with the others. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tsMs, users } from '../sqlite/tables.js'

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
