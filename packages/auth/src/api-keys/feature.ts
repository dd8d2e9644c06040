/**
 * API keys with typed scopes (docs/reference/api-keys.md), on when `apiKeys` declares the scopes:
 * the routes that make, list and revoke them, and the security scheme the guarded routes that take
 * them name.
 */
import { defineFeature } from '../feature.js'
import { API_KEY_SCHEME } from '../guard-answers.js'
import { EXPIRED_KEY_GRACE_MS } from './core.js'
import { resolveApiKeysOption } from './options.js'
import { apiKeyRoutes } from './routes/index.js'

export const apiKeysFeature = defineFeature({
  name: 'api-keys',
  options: resolveApiKeysOption,
  routes: (deps) => {
    const { apiKeys } = deps
    const options = deps.options.apiKeys
    if (!apiKeys || !options) return
    deps.app.openAPIRegistry.registerComponent('securitySchemes', API_KEY_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'lk_ API key',
      description: `An API key (\`Authorization: Bearer lk_…\`, never a cookie or the query), made with POST /auth/api-keys. An operation that takes keys names the scope it needs: ${[
        ...options.scopes,
      ]
        .map(([name, what]) => `\`${name}\` (${what})`)
        .join(', ')}.`,
    })
    apiKeyRoutes({ ...deps, apiKeys, scopes: options.scopes })
  },
  /** Keys expired longer ago than the grace (docs/guide/api-keys.md#expiry); a revoked key's row goes at once. */
  sweep: { apiKeys: (store, now, limit) => store.pruneApiKeys(new Date(now.getTime() - EXPIRED_KEY_GRACE_MS), limit) },
})
