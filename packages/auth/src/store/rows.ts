/**
 * Rows of the bundled stores' tables (the same columns in the SQLite and PostgreSQL dialects) turned into what the
 * store interface returns: never the password hash or a refresh hash where it is not asked for.
 */
import type {
  AuthMethod,
  NewSession,
  SessionAuthentication,
  SessionInfo,
  SessionRefreshState,
  UserRecord,
  UserWithHash,
} from './types.js'

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

/** A session as its owner sees it: exactly the interface's fields. */
export const toSessionInfo = (row: SessionInfo): SessionInfo => ({
  id: row.id,
  userId: row.userId,
  createdAt: row.createdAt,
  refreshedAt: row.refreshedAt,
  userAgent: row.userAgent,
  ip: row.ip,
})

/** The columns of a session's last proof; `null` in a row from before 0.2. */
export interface AuthenticationColumns {
  createdAt: Date
  authenticatedAt: Date | null
  amr: AuthMethod[] | null
}

/**
 * A session's last proof. A session from before 0.2 recorded none: it counts as proven by a
 * password when it was created (its login), which is what opened it then.
 */
export const toAuthentication = ({ createdAt, authenticatedAt, amr }: AuthenticationColumns): SessionAuthentication => ({
  authenticatedAt: authenticatedAt ?? createdAt,
  amr: amr ?? ['pwd'],
})

/** The refresh facts of a sessions row: exactly the interface's fields, whatever else the row holds. */
export const toRefreshState = (
  row: Omit<SessionRefreshState, keyof SessionAuthentication> & AuthenticationColumns,
): SessionRefreshState => ({
  id: row.id,
  userId: row.userId,
  createdAt: row.createdAt,
  refreshedAt: row.refreshedAt,
  refreshKeyHash: row.refreshKeyHash,
  refreshHash: row.refreshHash,
  previousRefreshHash: row.previousRefreshHash,
  rotatedAt: row.rotatedAt,
  ...toAuthentication(row),
})

/** A new session's row: created, refreshed and proven `now`; by a password unless `amr` says otherwise. */
export const newSessionRow = (input: NewSession) => ({
  id: input.id,
  userId: input.userId,
  createdAt: input.now,
  refreshedAt: input.now,
  authenticatedAt: input.now,
  amr: input.amr ?? (['pwd'] as AuthMethod[]),
  refreshHash: input.refreshHash,
  refreshKeyHash: input.refreshKeyHash ?? null,
  userAgent: input.userAgent ?? null,
  ip: input.ip ?? null,
})
