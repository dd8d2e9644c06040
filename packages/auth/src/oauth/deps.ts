/** What the social sign-in routes are given: the route dependencies, with providers configured. */
import type { LimitCounter } from '../limit-counter.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import type { OAuthCore } from './core.js'

export type OAuthDeps<U extends UserRecord> = Omit<RouteDeps<U>, 'oauth'> & {
  oauth: OAuthCore
  /** The callback counts its own limit: refused, it redirects instead of answering 429. */
  limits: LimitCounter
}
