/**
 * The second factor's routes (docs/reference/two-factor.md), one file per endpoint: set up a TOTP
 * key (pending), enable it with a code (recovery codes shown once; every other session ends),
 * disable it or renew the recovery codes with the password and a code, and finish a challenged
 * login with `POST /two-factor/verify`. Every code is spent atomically: a TOTP step once, a
 * recovery code once. Login reaches this feature only through its second step (`second-step.ts`).
 */
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { disableTwoFactor } from './disable.js'
import { enableTwoFactor } from './enable.js'
import { renewRecoveryCodes } from './recovery-codes.js'
import { setUpTwoFactor } from './setup.js'
import { twoFactorStatus } from './status.js'
import { verifyTwoFactor } from './verify.js'

export const twoFactorRoutes = <U extends UserRecord>(deps: RouteDeps<U>) => {
  twoFactorStatus(deps)
  setUpTwoFactor(deps)
  enableTwoFactor(deps)
  disableTwoFactor(deps)
  renewRecoveryCodes(deps)
  verifyTwoFactor(deps)
}
