/**
 * The proof the sensitive steps ask for: the current password (change-password always; change-email,
 * delete-account and the two-factor changes) or, for the latter, a fresh session instead
 * (docs/guide/step-up.md): one that proved its holder within `freshAge` seconds.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { peekJson } from '../body.js'
import { AuthError, reauthenticationRequired } from '../errors.js'
import type { GuardEnv } from '../guard.js'
import type { ResolvedOptions } from '../options.js'
import { normalizePassword } from '../password.js'
import { isFresh } from '../session.js'
import type { UserRecord, UserWithHash } from '../store/types.js'
import type { RouteDeps } from './deps.js'

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
  { store, hasher }: Pick<RouteDeps<U>, 'store' | 'hasher'>,
  c: Context,
  userId: string,
  password: string,
  path?: string,
): Promise<UserWithHash<U>> => {
  const found = await store.findUserById(userId)
  // An account without a password (docs/reference/email-sign-in.md) has none to be right.
  if (!found || found.passwordHash === null || !(await hasher(c).verify(found.passwordHash, normalizePassword(password))))
    throw wrongPassword(path)
  return found
}

/** Whether the body carries `currentPassword` at all (a wrong type is validation's 400, not a missing proof). */
const namesPassword = (body: unknown) =>
  typeof body === 'object' && body !== null && (body as { currentPassword?: unknown }).currentPassword !== undefined

/**
 * Middleware after the guard, before the limits and validation: a request without
 * `currentPassword` on a session that is not fresh is 401 `reauthentication_required` (a 401
 * comes before a 429 or a 400), and counts against nothing.
 */
export const passwordOrFresh =
  ({ now, freshAge }: Pick<ResolvedOptions, 'now' | 'freshAge'>): MiddlewareHandler<GuardEnv> =>
  async (c, next) => {
    if (!namesPassword(await peekJson(c)) && !isFresh(c.var, now(), freshAge)) throw reauthenticationRequired(freshAge)
    await next()
  }

/**
 * The account as stored, when the request proves its holder: `currentPassword` when given (wrong
 * → 400, even on a fresh session), otherwise a session fresh within `freshAge`.
 */
export const confirmHolder = async <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'store' | 'hasher' | 'options'>,
  c: Context<GuardEnv<U>>,
  currentPassword: string | undefined,
): Promise<UserWithHash<U>> => {
  const { user } = c.var
  if (currentPassword !== undefined) return checkCurrentPassword(deps, c, user.id, currentPassword)
  const { now, freshAge } = deps.options
  if (!isFresh(c.var, now(), freshAge)) throw reauthenticationRequired(freshAge)
  const found = await deps.store.findUserById(user.id)
  // Deleted since the guard read it: the session went with it.
  if (!found) throw reauthenticationRequired(freshAge)
  return found
}
