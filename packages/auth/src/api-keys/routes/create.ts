/**
 * POST /api-keys: a new API key for the signed-in user (docs/guide/api-keys.md#creating-a-key). A
 * key outlives a password change and acts without a second factor, so only a fresh session of a
 * verified account may make one; a key itself never can (403 `session_required`). The key is in
 * this answer only; the store keeps its SHA-256.
 */
import { AuthError } from '../../errors.js'
import { limitBy } from '../../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { MAX_KEYS } from '../core.js'
import { CreatedApiKeySchema, createKeyBody, keyJson } from '../schemas.js'
import type { ApiKeyDeps } from './deps.js'

export const createApiKey = <U extends UserRecord>(deps: ApiKeyDeps<U>) =>
  deps.route.guarded(
    {
      fresh: deps.options.freshAge,
      method: 'post',
      path: '/api-keys',
      verifiedEmail: true,
      operationId: 'createApiKey',
      tags: ['api-keys'],
      summary: 'Create an API key (shown once)',
      request: { body: jsonBody(createKeyBody([...deps.scopes.keys()])) },
      responses: {
        201: jsonContent(CreatedApiKeySchema, 'Created: `key` is shown in this answer only; a notice is mailed'),
        400: problemResponse('Invalid input: a name of 1 to 100 characters, at least one declared scope, 1 to 365 days'),
        403: problemResponse('The email address is not verified (`email-unverified`); nothing changed'),
        409: problemResponse(`The account already holds ${MAX_KEYS} unexpired keys (\`too-many-keys\`)`),
      },
    },
    { limit: { name: 'api-key-create', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const { name, scopes, expiresInDays } = c.req.valid('json')
      const { user } = c.var
      const created = await deps.apiKeys.create({ userId: user.id, name, scopes, expiresInDays: expiresInDays ?? 90 })
      if (!created)
        throw new AuthError('too_many_keys', {
          detail: `An account holds at most ${MAX_KEYS} unexpired API keys; revoke one you no longer use first.`,
        })
      const { record, key } = created
      deps.notify.event(c, { type: 'api_key.created', userId: user.id, keyId: record.id })
      deps.notify.mail({
        kind: 'api-key-created',
        to: user.email,
        name: record.name,
        scopes: record.scopes,
        expiresAt: record.expiresAt.toISOString(),
      })
      return c.json({ ...keyJson(record), key }, 201)
    },
  )
