/** The API-key routes (docs/guide/api-keys.md), one file per endpoint, mounted when the `apiKeys` option is set. */
import type { UserRecord } from '../../store/types.js'
import { createApiKey } from './create.js'
import type { ApiKeyDeps } from './deps.js'
import { listApiKeys } from './list.js'
import { revokeApiKey } from './revoke.js'

export const apiKeyRoutes = <U extends UserRecord>(deps: ApiKeyDeps<U>) => {
  createApiKey(deps)
  listApiKeys(deps)
  revokeApiKey(deps)
}
