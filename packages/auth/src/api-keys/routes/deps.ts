/** What the API-key routes are given: the route dependencies, with API keys on, and the declared scopes. */
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import type { ApiKeyCore } from '../core.js'

export type ApiKeyDeps<U extends UserRecord> = Omit<RouteDeps<U>, 'apiKeys'> & {
  apiKeys: ApiKeyCore<U>
  /** Each declared scope and its description. */
  scopes: ReadonlyMap<string, string>
}
