/** The API-key facet's columns and conditions, one home for the SQLite and PostgreSQL stores. */
import { and, type Column, eq, gt, isNull, lte, or, type SQL } from 'drizzle-orm'
import { withProfile } from '../store/rows.js'
import type { UserRecord } from '../store/users.js'
import type { ApiKeyRecord } from './store.js'

interface KeyColumns {
  id: Column
  userId: Column
  name: Column
  scopes: Column
  prefix: Column
  createdAt: Column
  expiresAt: Column
  lastUsedAt: Column
}

interface UserColumns {
  name: Column
  email: Column
  role: Column
  emailVerified: Column
  profile: Column
  createdAt: Column
  disabledAt: Column
}

/** What a key's list shows: every column but the hash. */
export const keyColumns = <K extends KeyColumns>(k: K) => ({
  id: k.id as K['id'],
  userId: k.userId as K['userId'],
  name: k.name as K['name'],
  scopes: k.scopes as K['scopes'],
  prefix: k.prefix as K['prefix'],
  createdAt: k.createdAt as K['createdAt'],
  expiresAt: k.expiresAt as K['expiresAt'],
  lastUsedAt: k.lastUsedAt as K['lastUsedAt'],
})

/** The guard's lookup: the key and its user in one flat row, never the password hash. */
export const keyLookupColumns = <K extends KeyColumns, U extends UserColumns>(k: K, u: U) => ({
  ...keyColumns(k),
  userName: u.name as U['name'],
  email: u.email as U['email'],
  role: u.role as U['role'],
  emailVerified: u.emailVerified as U['emailVerified'],
  profile: u.profile as U['profile'],
  userCreatedAt: u.createdAt as U['createdAt'],
  disabledAt: u.disabledAt as U['disabledAt'],
})

export interface KeyLookupRow extends ApiKeyRecord {
  userName: string
  email: string
  role: string | null
  emailVerified: boolean
  profile: Record<string, unknown> | null
  userCreatedAt: Date
  disabledAt: Date | null
}

export const toApiKey = (row: ApiKeyRecord): ApiKeyRecord => ({
  id: row.id,
  userId: row.userId,
  name: row.name,
  scopes: row.scopes,
  prefix: row.prefix,
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
  lastUsedAt: row.lastUsedAt,
})

export const fromKeyLookup = (row: KeyLookupRow): { key: ApiKeyRecord; user: UserRecord } => ({
  key: toApiKey(row),
  user: withProfile(
    {
      id: row.userId,
      name: row.userName,
      email: row.email,
      role: row.role,
      emailVerified: row.emailVerified,
      createdAt: row.userCreatedAt,
      disabledAt: row.disabledAt,
    },
    row.profile,
  ),
})

/** One of the user's keys. */
export const ownKey = (k: { id: Column; userId: Column }, userId: string, id: string) =>
  and(eq(k.id, id), eq(k.userId, userId)) as SQL

/** The user's keys that count toward the limit: those unexpired at `now`. */
export const countedKeys = (k: { userId: Column; expiresAt: Column }, userId: string, now: Date) =>
  and(eq(k.userId, userId), gt(k.expiresAt, now)) as SQL

/** The key, unless its `lastUsedAt` is already later than `since`. */
export const staleUse = (k: { id: Column; lastUsedAt: Column }, id: string, since: Date) =>
  and(eq(k.id, id), or(isNull(k.lastUsedAt), lte(k.lastUsedAt, since))) as SQL

/** Newest first, ties by id. */
export const newestFirst = (a: ApiKeyRecord, b: ApiKeyRecord) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)
