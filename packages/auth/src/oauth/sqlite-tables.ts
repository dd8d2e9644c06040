/** The SQLite tables of sign-in through other providers (docs/guide/social-sign-in.md): `sqlite/schema.ts` lists them with the others. */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tsMs, users } from '../sqlite/tables.js'

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
    /** A link: the session that started it; the link completes only while that session lives. */
    sessionId: text('session_id'),
    expiresAt: tsMs('expires_at').notNull(),
    usedAt: tsMs('used_at'),
  },
  (t) => [index('auth_oauth_flows_expires_idx').on(t.expiresAt)],
)
