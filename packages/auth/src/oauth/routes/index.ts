/**
 * The social sign-in routes (docs/guide/social-sign-in.md), mounted when the `providers` option
 * lists any (`GET /oauth/providers`, mounted always, is `providers.ts`).
 */
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { oauthCallback } from './callback.js'
import { identityRoutes } from './identities.js'
import { linkProvider } from './link.js'
import { startSignIn } from './start.js'

export const oauthRoutes = <U extends UserRecord>(deps: OAuthDeps<U>) => {
  startSignIn(deps)
  oauthCallback(deps)
  linkProvider(deps)
  identityRoutes(deps)
}
