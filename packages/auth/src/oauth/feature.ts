/**
 * Sign-in with other providers (docs/reference/providers.md): OAuth 2.0 and OpenID Connect, the
 * identities linked to an account, on when `providers` lists any. `GET /oauth/providers` is
 * declared either way (an empty list).
 */
import { defineFeature } from '../feature.js'
import { resolveProvidersOption } from './options.js'
import { oauthRoutes } from './routes/index.js'
import { listProviders } from './routes/providers.js'

export const oauthFeature = defineFeature({
  name: 'oauth',
  options: resolveProvidersOption,
  routes: (deps) => {
    // The fixed path before `/oauth/{provider}`: `providers` is not a provider id.
    listProviders(deps)
    if (deps.oauth) oauthRoutes({ ...deps, oauth: deps.oauth })
  },
  /** Used or expired social sign-in flows. */
  sweep: { oauthFlows: (store, now, limit) => store.pruneOAuthFlows(now, limit) },
})
