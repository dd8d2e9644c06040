/** The password re-check of the steps that need it (change-password, change-email, delete-account). */
import type { Context } from 'hono'
import { AuthError } from '../errors.js'
import { normalizePassword } from '../password.js'
import type { UserRecord, UserWithHash } from '../store/types.js'
import type { RouteDeps } from './deps.js'

/** 400 for a current password that is wrong (or no longer current), with its `errors[]` entry. */
export const wrongPassword = () =>
  new AuthError('wrong_password', {
    detail: 'The current password is wrong.',
    errors: [{ path: 'currentPassword', code: 'wrong_password', message: 'Current password is wrong' }],
  })

/** The account as stored, when `password` is its current password; otherwise throws {@link wrongPassword}. */
export const checkCurrentPassword = async <U extends UserRecord>(
  { store, hasher }: Pick<RouteDeps<U>, 'store' | 'hasher'>,
  c: Context,
  userId: string,
  password: string,
): Promise<UserWithHash<U>> => {
  const found = await store.findUserById(userId)
  // An account without a password (docs/reference/email-sign-in.md) has none to be right.
  if (!found || found.passwordHash === null || !(await hasher(c).verify(found.passwordHash, normalizePassword(password))))
    throw wrongPassword()
  return found
}
