/** The guard's hook for API keys (`header-credential.ts`): an `lk_` bearer value is a key (docs/guide/api-keys.md#using-a-key). */
import type { HeaderCredential } from '../header-credential.js'
import type { UserRecord } from '../store/users.js'
import { type ApiKeyCore, admitKey } from './core.js'
import { looksLikeApiKey } from './key-format.js'

export const apiKeyCredential = <U extends UserRecord>(keys: ApiKeyCore<U>): HeaderCredential<U> => ({
  recognizes: looksLikeApiKey,
  async admit(token, demand) {
    const found = await keys.verify(token)
    if (!found) return null
    admitKey(found.key, demand)
    return { user: found.user, credential: { kind: 'api-key', keyId: found.key.id, scopes: found.key.scopes } }
  },
})
