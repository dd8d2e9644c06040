/**
 * The operators' queries as every bundled store runs them (SQLite, D1, PostgreSQL: the same tables
 * and columns). A store facet gives its tables and the dialect's indexed search keys; the counts are
 * correlated subqueries, each answered by an index on `user_id`.
 */
import { and, type Column, desc, eq, gt, gte, isNotNull, lt, or, type SQL, sql, type Table } from 'drizzle-orm'
import type { UserRecord } from '../store/users.js'
import type { AdminUserFacts, LiveCutoffs, UserCursor } from './store.js'

/** The columns the queries read, the same in every bundled schema. */
export interface AdminSchema {
  users: Table & { id: Column; createdAt: Column }
  sessions: Table & { userId: Column; refreshedAt: Column; createdAt: Column }
  twoFactors: Table & { userId: Column; enabledAt: Column }
  passkeys: Table & { userId: Column }
  devices: Table & { userId: Column; lastSeenAt: Column }
}

/** The dialect's expressions of the search, each the expression of an index (so a prefix is a range of it). */
export interface SearchKeys {
  email: SQL
  name: SQL
}

/**
 * The largest code point: every text that starts with `prefix` sorts (byte by byte, UTF-8) before
 * `prefix` followed by it, so `[prefix, prefix + MAX)` is the prefix as an index range.
 */
const MAX_CODE_POINT = '\u{10FFFF}'

const startsWith = (key: SQL, prefix: string) => and(gte(key, prefix), lt(key, `${prefix}${MAX_CODE_POINT}`)) as SQL

/** The search's WHERE: the prefix on the email or the name, and past the cursor in the newest-first order. */
export const searchWhere = (s: AdminSchema, keys: SearchKeys, prefix: string | null, after: UserCursor | null) =>
  and(
    prefix === null ? undefined : or(startsWith(keys.email, prefix), startsWith(keys.name, prefix)),
    after === null
      ? undefined
      : or(lt(s.users.createdAt, after.createdAt), and(eq(s.users.createdAt, after.createdAt), lt(s.users.id, after.id))),
  )

/** Newest first; the id breaks ties, so the order is total and a cursor never skips or repeats an account. */
export const newestFirst = (s: AdminSchema) => [desc(s.users.createdAt), desc(s.users.id)] as const

/**
 * The counts of an account, as columns of a select from the users table. Each correlation is an
 * `eq()`, which Drizzle writes with both tables named (a bare column in a template is not).
 */
export const factColumns = (s: AdminSchema, live: LiveCutoffs) => ({
  lastSignInAt: sql`(select max(${s.devices.lastSeenAt}) from ${s.devices} where ${eq(s.devices.userId, s.users.id)})`.mapWith(
    s.devices.lastSeenAt,
  ),
  twoFactor:
    sql`(select count(*) from ${s.twoFactors} where ${and(eq(s.twoFactors.userId, s.users.id), isNotNull(s.twoFactors.enabledAt))})`.mapWith(
      Number,
    ),
  passkeys: sql`(select count(*) from ${s.passkeys} where ${eq(s.passkeys.userId, s.users.id)})`.mapWith(Number),
  sessions: sql`(select count(*) from ${s.sessions} where ${and(
    eq(s.sessions.userId, s.users.id),
    gt(s.sessions.refreshedAt, live.deadIfRefreshedBy),
    gt(s.sessions.createdAt, live.deadIfCreatedBy),
  )})`.mapWith(Number),
})

/** A row of a select of the user and {@link factColumns}, as the store answers it. */
export const toFacts = <U extends UserRecord>(
  row: { lastSignInAt: unknown; twoFactor: number; passkeys: number; sessions: number },
  user: U,
): AdminUserFacts<U> => ({
  user,
  lastSignInAt: (row.lastSignInAt as Date | null) ?? null,
  twoFactor: row.twoFactor > 0,
  passkeys: row.passkeys,
  identities: [],
  sessions: row.sessions,
})

/**
 * `facts` with their accounts' providers filled in, from one read of the identities of those
 * accounts (`read`: user id and provider id of each, one indexed read for the page); no read for none.
 */
export const withIdentities = async <U extends UserRecord>(
  facts: AdminUserFacts<U>[],
  read: (userIds: string[]) => Promise<{ userId: string; provider: string }[]>,
): Promise<AdminUserFacts<U>[]> => {
  if (facts.length === 0) return facts
  const linked = await read(facts.map((fact) => fact.user.id))
  return facts.map((fact) => ({
    ...fact,
    identities: [...new Set(linked.filter((row) => row.userId === fact.user.id).map((row) => row.provider))].sort(),
  }))
}
