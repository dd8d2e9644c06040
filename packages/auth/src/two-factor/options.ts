/**
 * The `twoFactor` option (docs/reference/two-factor.md), checked once at construction: the name
 * authenticator apps show for the account.
 */
import { fail } from '../option-checks.js'

export interface TwoFactorOptions {
  /**
   * The second factor (docs/reference/two-factor.md). `issuer` names the account in authenticator apps (the
   * `otpauth://` URI's issuer). Default `Latchkey`.
   */
  twoFactor?: { issuer?: string }
}

export interface ResolvedTwoFactorOptions {
  /** The issuer of `otpauth://` URIs. */
  twoFactorIssuer: string
}

export const resolveTwoFactorOptions = (options: TwoFactorOptions): ResolvedTwoFactorOptions => {
  const twoFactorIssuer = options.twoFactor?.issuer ?? 'Latchkey'
  // The issuer is the label's prefix (`Issuer:account`): a colon would end it early.
  if (typeof twoFactorIssuer !== 'string' || !/^[^:]{1,64}$/.test(twoFactorIssuer))
    fail('twoFactor.issuer', 'must be 1 to 64 characters without a colon')
  return { twoFactorIssuer }
}
