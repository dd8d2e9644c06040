/**
 * The one check every sign-in method makes for an account an operator disabled
 * (docs/guide/operators.md#disable): after its first factor was proven and before any second step,
 * so a wrong credential gets the method's ordinary refusal and the disabled state tells a stranger
 * nothing. Password, passkey, email and provider sign-in call {@link refuseDisabled}; the guard and
 * the refresh read {@link isDisabled} (a disabled account has no sessions, so this only backs that up).
 */
import { AuthError } from './errors.js'
import type { UserRecord } from './store/types.js'

/** Whether an operator disabled the account. */
export const isDisabled = (user: Pick<UserRecord, 'disabledAt'>): boolean =>
  user.disabledAt !== null && user.disabledAt !== undefined

/** 403 `account_disabled`: the credential was right, and the account is disabled. */
export const accountDisabled = () =>
  new AuthError('account_disabled', { detail: 'This account has been disabled. Contact the service to have it enabled again.' })

/** Throws {@link accountDisabled} for a disabled account; call it once the first factor is proven. */
export const refuseDisabled = (user: Pick<UserRecord, 'disabledAt'>): void => {
  if (isDisabled(user)) throw accountDisabled()
}
