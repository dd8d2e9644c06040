/** A guarded passkey route: the user's guard (with the config's `fresh`), then the per-user limit of `endpoint`. */
import { type GuardedRouteConfig, guardedRoute } from '../../route.js'
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from './deps.js'

export const guardedPasskeyRoute = <U extends UserRecord, C extends GuardedRouteConfig<never>>(
  { guard, limits }: Pick<PasskeyDeps<U>, 'guard' | 'limits'>,
  config: C,
  endpoint?: string,
) => guardedRoute(guard(true, { fresh: config.fresh }), config, endpoint ? [limits.perUser(endpoint)] : [])
