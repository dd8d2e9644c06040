/** The second factor's part in step-up (`step-up-code.ts`): a code of the app, or an unused recovery code. */
import type { Notifier } from '../notify.js'
import type { StepUpCode } from '../step-up-code.js'
import { AnyCode, wrongCode } from './codes.js'
import type { TwoFactorCore } from './factor.js'
import type { TwoFactorStore } from './store.js'

export const stepUpCode = ({
  store,
  twoFactor,
  notify,
}: {
  store: TwoFactorStore
  twoFactor: TwoFactorCore
  notify: Notifier
}): StepUpCode => ({
  field: (description) => AnyCode.optional().openapi({ description }),
  async check(c, userId, code) {
    const factor = await store.findTwoFactor(userId)
    if (!factor?.enabledAt) return 'off'
    if (code === undefined) return 'missing'
    const spent = await twoFactor.spend(userId, factor, code, true)
    if (spent) return spent
    notify.event(c, { type: 'two_factor.failed', userId })
    throw wrongCode()
  },
  recovered(c, user, usedFor) {
    notify.event(c, { type: 'recovery_code.used', userId: user.id })
    notify.mail({ kind: 'recovery-code-used', to: user.email, usedFor })
  },
})
