/**
 * The guard's session lookup as every bundled store runs it (SQLite, D1, PostgreSQL): one flat row of the columns it
 * returns (never the password hash), turned into the session and its user.
 */
import type { Column } from 'drizzle-orm'
import { type AuthenticationColumns, toAuthentication, withProfile } from './rows.js'
import type { LiveSession, UserRecord } from './types.js'

/** The columns to select from a store's sessions and users tables, each keeping its Drizzle type. */
export const sessionLookupColumns = <
  S extends { userId: unknown; createdAt: unknown; refreshedAt: unknown; authenticatedAt: unknown; amr: unknown },
  U extends {
    name: unknown
    email: unknown
    role: unknown
    emailVerified: unknown
    profile: unknown
    createdAt: unknown
    disabledAt: unknown
  },
>(
  sessions: S,
  users: U,
): {
  userId: S['userId']
  createdAt: S['createdAt']
  refreshedAt: S['refreshedAt']
  authenticatedAt: S['authenticatedAt']
  amr: S['amr']
  name: U['name']
  email: U['email']
  role: U['role']
  emailVerified: U['emailVerified']
  profile: U['profile']
  userCreatedAt: U['createdAt']
  disabledAt: U['disabledAt']
} => ({
  userId: sessions.userId,
  createdAt: sessions.createdAt,
  refreshedAt: sessions.refreshedAt,
  authenticatedAt: sessions.authenticatedAt,
  amr: sessions.amr,
  name: users.name,
  email: users.email,
  role: users.role,
  emailVerified: users.emailVerified,
  profile: users.profile,
  userCreatedAt: users.createdAt,
  disabledAt: users.disabledAt,
})

export interface SessionLookupRow extends AuthenticationColumns {
  userId: string
  refreshedAt: Date
  name: string
  email: string
  role: string | null
  emailVerified: boolean
  profile: Record<string, unknown> | null
  userCreatedAt: Date
  disabledAt: Date | null
}

export const fromSessionLookup = (
  sessionId: string,
  {
    userId,
    createdAt,
    refreshedAt,
    authenticatedAt,
    amr,
    name,
    email,
    role,
    emailVerified,
    profile,
    userCreatedAt,
    disabledAt,
  }: SessionLookupRow,
): { session: LiveSession; user: UserRecord } => ({
  session: { id: sessionId, userId, createdAt, refreshedAt, ...toAuthentication({ createdAt, authenticatedAt, amr }) },
  user: withProfile({ id: userId, name, email, role, emailVerified, createdAt: userCreatedAt, disabledAt }, profile),
})

/**
 * The {@link SessionLookupRow} of the raw values of a prepared select of
 * {@link sessionLookupColumns} (its `values()`, in the columns' order), each decoded by its own
 * column, `null` kept: what Drizzle's row mapping makes of them, without its checks of every
 * field's kind on every row (a guarded read's session lookup, docs/PERFORMANCE.md#the-layers-of-a-request).
 */
export const sessionLookupDecoder = (columns: Record<keyof SessionLookupRow, Column>) => {
  const names = Object.keys(columns) as (keyof SessionLookupRow)[]
  const decoders = names.map((name) => columns[name])
  return (values: unknown[]): SessionLookupRow => {
    const row: Record<string, unknown> = {}
    for (let i = 0; i < names.length; i++) {
      const value = values[i]
      row[names[i] as string] = value === null ? null : (decoders[i] as Column).mapFromDriverValue(value)
    }
    return row as unknown as SessionLookupRow
  }
}
