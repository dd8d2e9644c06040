/**
 * The proof the sensitive steps ask for: the current password (change-password always; change-email,
 * delete-account and the two-factor changes) or, for the latter, a fresh session instead
 * (docs/guide/step-up.md): one that proved its holder within `freshAge` seconds. A request that names no
 * password on a stale session is refused before its limit by the route builder (`orCurrentPassword`).
 * And the proof verify-email asks of a password set before the mailbox was proven: a live session
 * of the account, or its password.
 */
import type { Context } from 'hono'
import { isCrossSiteUnsafe, readCredential } from './credentials.js'
import { AuthError, reauthenticationRequired } from './errors.js'
import type { GuardVariables } from './guard.js'
import { normalizePassword, type PasswordHasher } from './password.js'
import type { RouteDeps } from './route-deps.js'
import { isFresh } from './session-proof.js'
import type { UserRecord, UserWithHash } from './store/types.js'

/**
 * Whether the request carries a live session of account `userId`: its access token (read as the
 * guard reads it) or its refresh cookie, looked at only, never rotated or spent. Anything else
 * counts as none: another account's session, a refused token, a cookie sent from another site
 * (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox).
 */
export const carriesSessionOf = async <U extends UserRecord>(
  { identify, sessions, cookie, options }: Pick<RouteDeps<U>, 'identify' | 'sessions' | 'cookie' | 'options'>,
  c: Context,
  userId: string,
): Promise<boolean> => {
  const crossSite = isCrossSiteUnsafe(c, options.trustedOrigins)
  const credential = readCredential(c)
  if (
    credential?.token &&
    !(credential.source === 'cookie' && crossSite) &&
    (await identify(credential.token))?.user.id === userId
  )
    return true
  const presented = cookie.read(c)
  return typeof presented === 'string' && !crossSite && (await sessions.holderOf(presented)) === userId
}

/** The `c.var` of a guarded route that hashes: the signed-in holder, its session's last proof, the client's hasher (route-builder.ts). */
export type Holder<U extends UserRecord> = Pick<GuardVariables<U>, 'user' | 'authenticatedAt' | 'amr'> & {
  hasher: PasswordHasher
}

/** 400 for a current password that is wrong (or no longer current), with its `errors[]` entry. */
export const wrongPassword = (path = 'currentPassword') =>
  new AuthError('wrong_password', {
    detail: path === 'currentPassword' ? 'The current password is wrong.' : 'The password is wrong.',
    errors: [
      { path, code: 'wrong_password', message: path === 'currentPassword' ? 'Current password is wrong' : 'Password is wrong' },
    ],
  })

/** The account as stored, when `password` is its current password; otherwise throws {@link wrongPassword}. */
export const checkCurrentPassword = async <U extends UserRecord>(
  { store }: Pick<RouteDeps<U>, 'store'>,
  holder: { user: { id: string }; hasher: PasswordHasher },
  password: string,
  path?: string,
): Promise<UserWithHash<U>> => {
  const found = await store.findUserById(holder.user.id)
  // An account without a password (docs/reference/email-sign-in.md) has none to be right.
  if (!found || found.passwordHash === null || !(await holder.hasher.verify(found.passwordHash, normalizePassword(password))))
    throw wrongPassword(path)
  return found
}

/**
 * The account as stored, when the request proves its holder: `currentPassword` when given (wrong
 * → 400, even on a fresh session), otherwise a session fresh within `freshAge`.
 */
export const confirmHolder = async <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'store' | 'options'>,
  holder: Holder<U>,
  currentPassword: string | undefined,
): Promise<UserWithHash<U>> => {
  const { user } = holder
  if (currentPassword !== undefined) return checkCurrentPassword(deps, holder, currentPassword)
  const { now, freshAge } = deps.options
  if (!isFresh(holder, now(), freshAge)) throw reauthenticationRequired(freshAge)
  const found = await deps.store.findUserById(user.id)
  // Deleted since the guard read it: the session went with it.
  if (!found) throw reauthenticationRequired(freshAge)
  return found
}
