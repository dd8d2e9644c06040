/** The common start of disable and renew: the password (or a fresh session), then an enabled factor, then the code spent. */
import type { Context } from 'hono'
import { confirmHolder, type Holder } from '../current-password.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { notEnabled, wrongCode } from './codes.js'

export const passwordThenCode = async <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'store' | 'notify' | 'options' | 'twoFactor'>,
  c: Context,
  holder: Holder<U>,
  password: string | undefined,
  code: string,
  recovery: boolean,
) => {
  const userId = holder.user.id
  await confirmHolder(deps, holder, password)
  const factor = await deps.store.findTwoFactor(userId)
  if (!factor?.enabledAt) throw notEnabled()
  const spent = await deps.twoFactor.spend(userId, factor, code, recovery)
  if (!spent) {
    deps.notify.event(c, { type: 'two_factor.failed', userId })
    throw wrongCode()
  }
  return spent
}
