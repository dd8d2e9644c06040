/** The SQLite tables of the second factor (docs/reference/two-factor.md): `sqlite/schema.ts` lists them with the others. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tsMs, users } from '../sqlite/tables.js'
import type { FirstFactor } from '../store/types.js'

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
