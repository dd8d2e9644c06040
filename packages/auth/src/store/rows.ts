/**
 * Rows of the bundled stores' tables (the same columns in both dialects) turned into what the
 * store interface returns: never the password hash or a refresh hash where it is not asked for.
 */
import type { SessionRecord, UserRecord, UserWithHash } from './types.js'

interface UserRow extends UserRecord {
  passwordHash: string
  credentialsVersion: number
}

export const toUser = ({ passwordHash: _, credentialsVersion: __, ...user }: UserRow): UserRecord => user

export const withHash = (row: UserRow | undefined): UserWithHash | null =>
  row ? { user: toUser(row), passwordHash: row.passwordHash, credentialsVersion: row.credentialsVersion } : null

export const toSessionRecord = ({ id, userId, createdAt, refreshedAt }: SessionRecord): SessionRecord => ({
  id,
  userId,
  createdAt,
  refreshedAt,
})
