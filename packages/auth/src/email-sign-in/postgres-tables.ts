/** The PostgreSQL tables of sign-in by email (docs/reference/email-sign-in.md): `postgres/schema.ts` lists them with the others. */
import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { at, users } from '../postgres/tables.js'

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
