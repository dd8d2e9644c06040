/**
 * A {@link Revocation} as the bundled stores' tables see it: which rows of which table it deletes,
 * and what it writes on the user's row. One plan for every Drizzle dialect (the SQLite and
 * PostgreSQL schemas have the same tables and columns); each dialect's primitive runs it inside
 * the event's atomic step (`sqlite/revoke.ts` for every SQLite driver, `postgres/revoke.ts`).
 */
import { and, type Column, eq, isNull, ne, type SQL, sql } from 'drizzle-orm'
import type { Revocation } from '../account-events.js'
import { NO_PASSWORD } from './rows.js'

/** The columns a revocation reads, the same in every bundled schema. */
export interface RevocableSchema {
  users: { credentialsVersion: Column }
  sessions: { id: Column; userId: Column }
  resetTokens: { hash: Column; userId: Column; usedAt: Column }
  emailTokens: { hash: Column; userId: Column; kind: Column; usedAt: Column }
  challenges: { userId: Column }
  twoFactors: { userId: Column }
  recoveryCodes: { userId: Column }
  apiKeys: { userId: Column }
  identities: { userId: Column }
}

/**
 * The tables a revocation deletes rows of, in the PostgreSQL store's lock order (after the user's
 * row: tokens, second factor, recovery codes, challenges, API keys, identities, then sessions).
 */
export const REVOKED_TABLES = [
  'resetTokens',
  'emailTokens',
  'twoFactors',
  'recoveryCodes',
  'challenges',
  'apiKeys',
  'identities',
  'sessions',
] as const
export type RevokedTable = (typeof REVOKED_TABLES)[number]

export interface RevocationPlan {
  /** The WHERE of each table's delete; a table the revocation spares is absent. */
  rows: Partial<Record<RevokedTable, SQL>>
  /** What the user's row gets (a bumped version, no password); empty when neither. */
  user: { credentialsVersion?: SQL; passwordHash?: string }
}

export interface RevocationScope {
  /** The user (an id, or on D1 a subquery that finds it). */
  userId: string | SQL
  revoke: Revocation
  /** The session that made the change, kept by `sessions: 'others'`; `null` or absent: none is kept. */
  keepSessionId?: string | null
  /** The hash of the token the event spends: it is spent, never revoked (D1 spends it last). */
  spentHash?: string
}

/** What `revoke` deletes and writes for the user. */
export const revocationPlan = (s: RevocableSchema, { userId, revoke, keepSessionId = null, spentHash }: RevocationScope) => {
  const mine = (table: { userId: Column }, ...more: (SQL | undefined)[]) => and(eq(table.userId, userId), ...more) as SQL
  const notSpent = (table: { hash: Column }) => (spentHash === undefined ? undefined : ne(table.hash, spentHash))
  const keep = revoke.sessions === 'others' && keepSessionId !== null ? ne(s.sessions.id, keepSessionId) : undefined
  // One entry per target of the vocabulary: a new target does not compile until it is planned here.
  const targets = {
    sessions: revoke.sessions && { rows: { sessions: mine(s.sessions, keep) } },
    resetTokens: revoke.resetTokens && {
      rows: { resetTokens: mine(s.resetTokens, isNull(s.resetTokens.usedAt), notSpent(s.resetTokens)) },
    },
    emailTokens: revoke.emailTokens && {
      rows: {
        emailTokens: mine(
          s.emailTokens,
          isNull(s.emailTokens.usedAt),
          revoke.emailTokens === 'change-email' ? eq(s.emailTokens.kind, 'change-email') : undefined,
          notSpent(s.emailTokens),
        ),
      },
    },
    challenges: revoke.challenges && { rows: { challenges: mine(s.challenges) } },
    twoFactor: revoke.twoFactor && { rows: { twoFactors: mine(s.twoFactors), recoveryCodes: mine(s.recoveryCodes) } },
    password: revoke.password && { user: { passwordHash: NO_PASSWORD } },
    credentialsVersion: revoke.credentialsVersion && { user: { credentialsVersion: sql`${s.users.credentialsVersion} + 1` } },
    apiKeys: revoke.apiKeys && { rows: { apiKeys: mine(s.apiKeys) } },
    identities: revoke.identities && { rows: { identities: mine(s.identities) } },
  } satisfies { [T in keyof Required<Revocation>]: Partial<RevocationPlan> | undefined }
  const plan: RevocationPlan = { rows: {}, user: {} }
  for (const part of Object.values(targets) as (Partial<RevocationPlan> | undefined)[]) {
    Object.assign(plan.rows, part?.rows)
    Object.assign(plan.user, part?.user)
  }
  return plan
}

/** Whether the plan writes the user's row. */
export const writesUser = (plan: RevocationPlan) => Object.keys(plan.user).length > 0
