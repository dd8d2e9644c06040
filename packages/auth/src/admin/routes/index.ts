/**
 * The operators' routes under `/admin` of the auth routes (docs/guide/operators.md), mounted when
 * the `admin` option names a policy. Every route is guarded by that policy, every write also by a
 * fresh session. Not offered, by design: impersonating a user.
 */
import type { UserRecord } from '../../store/types.js'
import { type AdminDeps, accounts } from '../accounts.js'
import { actionRoutes } from './actions.js'
import { disableRoutes } from './disable.js'
import { readRoutes } from './read.js'

export const adminRoutes = <U extends UserRecord>(deps: AdminDeps<U>) => {
  const found = accounts(deps)
  readRoutes(deps, found)
  disableRoutes(deps, found)
  actionRoutes(deps, found)
}
