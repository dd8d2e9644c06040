/**
 * The breached-password rule of every new password (signup, change-password, reset-password):
 * refused with a field error when the range service has seen it, accepted with a
 * `breach_check.unavailable` event when the service cannot answer (fail open,
 * docs/guide/account-protection.md#breached-passwords). It runs after the other password rules and before anything is written, so a
 * refused password spends no reset token. `whileCheckingBreach` runs the route's hashing while the
 * range service answers: the request waits for the slower of the two, not for their sum.
 */
import type { Context } from 'hono'
import { normalizePassword } from './password.js'
import type { RouteDeps } from './route-deps.js'
import { fieldFailure } from './validation.js'

export const BREACHED_PASSWORD = 'Password has appeared in a data breach; choose another one'

export const refuseBreachedPassword = async (
  { options, notify }: Pick<RouteDeps<never>, 'options' | 'notify'>,
  c: Context,
  check: { password: string; field: string; endpoint: string; userId?: string },
): Promise<void> => {
  if (!options.breachCheck) return
  // The password as it is hashed and stored: NFKC, never trimmed (identical for ASCII).
  const verdict = await options.breachCheck(normalizePassword(check.password))
  if (verdict === 'breached') throw fieldFailure(check.field, 'breached_password', BREACHED_PASSWORD)
  if (verdict === 'unavailable')
    notify.event(c, {
      type: 'breach_check.unavailable',
      endpoint: check.endpoint,
      ...(check.userId ? { userId: check.userId } : {}),
    })
}

/**
 * Runs `work` (the hashing a route does before it writes) while the breach check of
 * `check.password` is in flight. The check's refusal wins over whatever `work` answered, as if it
 * had run first; nothing is written until both are done.
 */
export const whileCheckingBreach = async <T>(
  deps: Pick<RouteDeps<never>, 'options' | 'notify'>,
  c: Context,
  check: { password: string; field: string; endpoint: string; userId?: string },
  work: () => Promise<T>,
): Promise<T> => {
  const [breach, done] = await Promise.allSettled([refuseBreachedPassword(deps, c, check), work()])
  if (breach.status === 'rejected') throw breach.reason
  if (done.status === 'rejected') throw done.reason
  return done.value
}
