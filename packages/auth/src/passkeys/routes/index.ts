/** The passkey routes (docs/reference/passkeys.md), one file per endpoint, mounted when the `passkeys` option is set. */
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from '../deps.js'
import { passkeyList } from './list.js'
import { passkeyLogin } from './login.js'
import { passkeyLoginOptions } from './login-options.js'
import { passkeyRegister } from './register.js'
import { passkeyRegisterOptions } from './register-options.js'
import { passkeyRemove } from './remove.js'
import { passkeyRename } from './rename.js'

export const passkeyRoutes = <U extends UserRecord>(deps: PasskeyDeps<U>) => {
  passkeyLoginOptions(deps)
  passkeyLogin(deps)
  passkeyRegisterOptions(deps)
  passkeyRegister(deps)
  passkeyList(deps)
  passkeyRename(deps)
  passkeyRemove(deps)
}
