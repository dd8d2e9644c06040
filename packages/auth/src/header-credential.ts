/**
 * What the guard takes in the `Authorization` header besides an access token (docs/guide/api-keys.md#using-a-key):
 * a feature's own bearer value, told apart by its shape before any lookup. API keys register one
 * when the `apiKeys` option is on; with none registered, every bearer value is an access token.
 */
import type { ApiKeyCredential } from './guard.js'
import type { UserRecord } from './store/types.js'

/**
 * Which header credentials a route takes: `scope` (an application's route: only one holding the
 * route's scope, none when it declares no scope), `session` (the auth routes: none, 403
 * `session_required`), `any` (`GET /auth/me`: every live one).
 */
export type KeyAcceptance = 'scope' | 'session' | 'any'

/** What a guarded route demands of a header credential. */
export interface CredentialDemand {
  keys: KeyAcceptance
  scope: string | undefined
  /** A `fresh` route needs a session's recent proof, which no header credential has. */
  fresh: number | undefined
}

export interface HeaderCredential<U extends UserRecord> {
  /** Whether a bearer value is this credential's, by its shape alone (no lookup): it is then never read as an access token. */
  recognizes(token: string): boolean
  /**
   * The credential `token` is and its user as stored now, or `null` when it is malformed,
   * unknown, revoked or expired; throws the route's 403 when `demand` turns a live one away.
   */
  admit(token: string, demand: CredentialDemand): Promise<{ user: U; credential: ApiKeyCredential } | null>
}
