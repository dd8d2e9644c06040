/** The mails and events of the operators' API (docs/guide/operators.md), for the lists in `features.ts`. */
import type { Notice, UserEvent } from '../notify.js'

/**
 * What an operator did to the account (docs/guide/operators.md#what-the-user-is-told): say so in
 * the mail, so the owner knows it was the service and not someone with their password.
 */
interface OperatorNotice<K extends string> extends Notice<K> {
  byOperator: true
}

/** `actorId`: the operator who acted on the account `userId`. */
type OperatorEvent<T extends string> = UserEvent<T> & { actorId: string }

export type OperatorMail =
  /** An operator disabled the account: every session ended, and no sign-in opens it until it is enabled. */
  | OperatorNotice<'account-disabled'>
  | OperatorNotice<'account-enabled'>
  /** An operator signed the account out of every session. */
  | OperatorNotice<'signed-out-everywhere'>
  /** An operator marked the address verified. */
  | OperatorNotice<'email-marked-verified'>

export type OperatorsEvent =
  /** An operator (`actorId`) disabled the account `userId`, saying why (`reason`, as the operator typed it). */
  | (OperatorEvent<'admin.user_disabled'> & { reason: string })
  | OperatorEvent<'admin.user_enabled'>
  /** An operator signed the account out of every session. */
  | OperatorEvent<'admin.sessions_revoked'>
  /** An operator removed the second factor and its recovery codes. */
  | OperatorEvent<'admin.two_factor_cleared'>
  /** An operator had the ordinary reset link mailed to the account's address. */
  | OperatorEvent<'admin.password_reset_sent'>
  | OperatorEvent<'admin.email_verified'>
