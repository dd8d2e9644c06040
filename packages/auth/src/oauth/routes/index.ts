/** The social sign-in routes (docs/guide/social-sign-in.md), mounted when the `providers` option lists any. */
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { oauthCallback } from './callback.js'
import { identityRoutes } from './identities.js'
import { linkProvider } from './link.js'
import { listProviders } from './providers.js'
import { startSignIn } from './start.js'

export const oauthRoutes = <U extends UserRecord>(deps: OAuthDeps<U>) => {
  // The fixed path first: `providers` is not a provider id.
  listProviders(deps)
  startSignIn(deps)
  oauthCallback(deps)
  linkProvider(deps)
  identityRoutes(deps)
}
