/** The mails and events of the second factor (docs/reference/two-factor.md), for the lists in `features.ts`. */
import type { Notice, UserEvent } from '../notify.js'

/** What a recovery code was spent for (the `recovery-code-used` mail's `usedFor`). */
export type RecoveryCodeUse = 'sign-in' | 'reauth' | 'disable-two-factor' | 'delete-account'

export type TwoFactorMail =
  | Notice<'two-factor-enabled'>
  /** `byOperator`: an operator removed it for an owner who lost the factor and its recovery codes. */
  | (Notice<'two-factor-disabled'> & { byOperator?: true })
  /**
   * A recovery code was spent: `usedFor` says what for (`sign-in`, `reauth`,
   * `disable-two-factor`, `delete-account`), so the owner can tell their own use from someone else's.
   */
  | (Notice<'recovery-code-used'> & { usedFor: RecoveryCodeUse })

export type TwoFactorEvent =
  | UserEvent<'two_factor.enabled'>
  | UserEvent<'two_factor.disabled'>
  | UserEvent<'two_factor.failed'>
  | UserEvent<'recovery_code.used'>
