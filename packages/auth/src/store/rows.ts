/**
 * Rows of the bundled stores' tables (the same columns in the SQLite and PostgreSQL dialects) turned into what the
 * store interface returns: never the password hash or a refresh hash where it is not asked for.
 */
import type { SessionInfo, SessionRefreshState, UserRecord, UserWithHash } from './types.js'

interface UserRow extends UserRecord {
  passwordHash: string
  credentialsVersion: number
  profile: Record<string, unknown> | null
}

/** A user record: the application's extra fields first, so none can stand in for one of the record's own. */
export const withProfile = (user: UserRecord, profile: Record<string, unknown> | null): UserRecord =>
  profile ? { ...profile, ...user } : user

export const toUser = ({ passwordHash: _, credentialsVersion: __, profile, ...user }: UserRow): UserRecord =>
  withProfile(user, profile)

/** The stored hash of an account without a password (sign-in by email): no hash is empty. */
export const NO_PASSWORD = ''

export const withHash = (row: UserRow | undefined): UserWithHash | null =>
  row
    ? {
        user: toUser(row),
        passwordHash: row.passwordHash === NO_PASSWORD ? null : row.passwordHash,
        credentialsVersion: row.credentialsVersion,
      }
    : null

/** The refresh facts of a sessions row: exactly the interface's fields, whatever else the row holds. */
/** A session as its owner sees it: exactly the interface's fields. */
export const toSessionInfo = (row: SessionInfo): SessionInfo => ({
  id: row.id,
  userId: row.userId,
  createdAt: row.createdAt,
  refreshedAt: row.refreshedAt,
  userAgent: row.userAgent,
  ip: row.ip,
})

export const toRefreshState = (row: SessionRefreshState): SessionRefreshState => ({
  id: row.id,
  userId: row.userId,
  createdAt: row.createdAt,
  refreshedAt: row.refreshedAt,
  refreshKeyHash: row.refreshKeyHash,
  refreshHash: row.refreshHash,
  previousRefreshHash: row.previousRefreshHash,
  rotatedAt: row.rotatedAt,
})
