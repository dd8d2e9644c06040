/**
 * The relying party (docs/guide/social-sign-in.md#what-is-checked), on `oauth4webapi`: discovery
 * (cached; a failure is remembered for 5 seconds at most), the authorization URL with `state`,
 * PKCE S256 and for OpenID Connect a `nonce`, always; and the callback: the authorization
 * response (its `state`, and RFC 9207 `iss` whenever the provider advertises it), the code
 * exchange with the PKCE verifier, the ID token (signature by the provider's JWKS, `iss`, `aud`,
 * `azp`, `exp`, `nonce`), and userinfo when the ID token lacks the email, whose `sub` must match.
 * Nothing here is hand-written JWT or discovery handling, and no token reaches a log line.
 */
import { decodeJwt } from 'jose'
import * as oauth from 'oauth4webapi'
import { errorSummary } from '../errors.js'
import type { FederatedProfile, ResolvedProvider } from './options.js'

/** What a finished callback gave: the identity's issuer, the profile, the provider's tokens. */
export interface Federated {
  issuer: string
  profile: FederatedProfile
  tokens: { accessToken: string; refreshToken: string | null; expiresAt: Date | null; scope: string | null }
}

/** A refusal of the callback, as its `?error=` says it. */
export type FederationError = 'access_denied' | 'provider_error' | 'provider_unavailable'

export class FederationFailed extends Error {
  constructor(
    readonly error: FederationError,
    why: string,
  ) {
    super(why)
  }
}

/** How long a failed discovery is remembered: the first request after that reaches the provider again. */
export const DISCOVERY_RETRY_MS = 5_000
/** How long a request to a provider may take. */
const PROVIDER_TIMEOUT_MS = 5_000

const TENANT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type Cached = { as: oauth.AuthorizationServer } | { failedAt: number } | { pending: Promise<oauth.AuthorizationServer> }

const requestOptions = (url: string) => ({
  signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  [oauth.allowInsecureRequests]: url.startsWith('http:'),
})

const explain = (err: unknown) => {
  if (err instanceof oauth.OperationProcessingError || err instanceof oauth.UnsupportedOperationError)
    return `${err.code}: ${err.message}`
  if (err instanceof oauth.ResponseBodyError) return `${err.error} (${err.status})`
  if (err instanceof oauth.AuthorizationResponseError) return `authorization error ${err.error}`
  if (err instanceof oauth.WWWAuthenticateChallengeError) return `WWW-Authenticate challenge (${err.status})`
  return errorSummary(err)
}

/**
 * Why oauth4webapi refused, in words fit for a log line: its code and message, never a response
 * body or token; what the provider wrote (an `error` code) is cut short and kept to printable ASCII.
 */
const reason = (err: unknown) =>
  explain(err)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 200)

const storableClaim = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : null

/** The profile of ID token or userinfo claims: `email_verified` counts only as the boolean `true`. */
const profileOf = (claims: Record<string, unknown>, subject: string): FederatedProfile => {
  const email = storableClaim(claims.email, 320)
  return {
    subject,
    email,
    emailVerified: email !== null && claims.email_verified === true,
    name: storableClaim(claims.name, 1000),
  }
}

export const relyingParty = (deps: { now: () => Date; log: (message: string) => void }) => {
  const cache = new Map<string, Cached>()

  const discover = async (p: ResolvedProvider): Promise<oauth.AuthorizationServer> => {
    const response = await oauth.discoveryRequest(new URL(p.issuer), { algorithm: 'oidc', ...requestOptions(p.issuer) })
    // A multi-tenant endpoint's metadata names `{tenantid}`; each ID token's issuer is checked against its own tenant.
    const as = await oauth.processDiscoveryResponse(new URL(p.tenantIssuer ?? p.issuer), response)
    // The metadata's issuer as the ID tokens write it (URL parsing escaped the braces for the comparison).
    return p.tenantIssuer ? { ...as, issuer: p.tenantIssuer } : as
  }

  /** The provider's metadata: cached once found; a failure is remembered for {@link DISCOVERY_RETRY_MS}. */
  const metadata = async (p: ResolvedProvider): Promise<oauth.AuthorizationServer> => {
    if (p.oauth2)
      return {
        issuer: p.issuer,
        authorization_endpoint: p.oauth2.authorizationEndpoint,
        token_endpoint: p.oauth2.tokenEndpoint,
      }
    const cached = cache.get(p.id)
    if (cached && 'as' in cached) return cached.as
    if (cached && 'pending' in cached) return cached.pending
    if (cached && deps.now().getTime() - cached.failedAt < DISCOVERY_RETRY_MS)
      throw new FederationFailed('provider_unavailable', 'discovery failed moments ago')
    const pending = discover(p)
    cache.set(p.id, { pending })
    try {
      const as = await pending
      cache.set(p.id, { as })
      return as
    } catch (err) {
      cache.set(p.id, { failedAt: deps.now().getTime() })
      deps.log(`oauth ${p.id}: discovery failed: ${reason(err)}`)
      throw new FederationFailed('provider_unavailable', 'discovery failed')
    }
  }

  const client = (p: ResolvedProvider): oauth.Client => ({ client_id: p.clientId })
  const clientAuth = (p: ResolvedProvider, as: oauth.AuthorizationServer): oauth.ClientAuth => {
    const methods = as.token_endpoint_auth_methods_supported
    return p.oauth2 || (methods && !methods.includes('client_secret_basic'))
      ? oauth.ClientSecretPost(p.clientSecret)
      : oauth.ClientSecretBasic(p.clientSecret)
  }

  /** For a per-tenant issuer: the metadata with the issuer of the ID token's own tenant (`tid`). */
  const forTenant = async (p: ResolvedProvider, as: oauth.AuthorizationServer, response: Response) => {
    if (!p.tenantIssuer) return as
    const body = (await response.clone().json()) as { id_token?: unknown }
    const tid = typeof body.id_token === 'string' ? decodeJwt(body.id_token).tid : undefined
    if (typeof tid !== 'string' || !TENANT.test(tid)) throw new FederationFailed('provider_error', 'an ID token without a tenant')
    return { ...as, issuer: as.issuer.replace('{tenantid}', tid) }
  }

  const oidcProfile = async (
    p: ResolvedProvider,
    as: oauth.AuthorizationServer,
    result: oauth.TokenEndpointResponse,
  ): Promise<FederatedProfile> => {
    const claims = oauth.getValidatedIdTokenClaims(result)
    if (!claims) throw new FederationFailed('provider_error', 'no ID token')
    const profile = profileOf(claims, claims.sub)
    if (profile.email !== null || !as.userinfo_endpoint) return profile
    const response = await oauth.userInfoRequest(as, client(p), result.access_token, requestOptions(as.userinfo_endpoint))
    // processUserInfoResponse refuses a `sub` other than the ID token's.
    const info = await oauth.processUserInfoResponse(as, client(p), claims.sub, response)
    return { ...profileOf(info, claims.sub), name: profile.name ?? storableClaim(info.name, 1000) }
  }

  return {
    /** The authorization URL of a new flow; throws {@link FederationFailed} when the provider cannot be found. */
    async authorizationUrl(p: ResolvedProvider, flow: { state: string; nonce: string | null; codeVerifier: string }) {
      const as = await metadata(p)
      if (!as.authorization_endpoint) throw new FederationFailed('provider_unavailable', 'no authorization endpoint')
      const url = new URL(as.authorization_endpoint)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('client_id', p.clientId)
      url.searchParams.set('redirect_uri', p.redirectUri)
      url.searchParams.set('scope', p.scopes.join(' '))
      url.searchParams.set('state', flow.state)
      // PKCE S256 always, whatever the metadata says of it (a provider that omits it is not trusted to refuse it).
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(flow.codeVerifier))
      url.searchParams.set('code_challenge_method', 'S256')
      if (flow.nonce !== null) url.searchParams.set('nonce', flow.nonce)
      return url
    },

    /** Finishes a callback whose flow was claimed; throws {@link FederationFailed} with the `?error=` to show. */
    async finish(
      p: ResolvedProvider,
      callback: URLSearchParams,
      flow: { state: string; nonce: string | null; codeVerifier: string },
    ): Promise<Federated> {
      const as = await metadata(p)
      const stage = { now: 'authorization response' }
      try {
        // `state`, the RFC 9207 `iss` (required when advertised, checked whenever present), `error`.
        const params = oauth.validateAuthResponse(as, client(p), callback, flow.state)
        stage.now = 'token exchange'
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client(p),
          clientAuth(p, as),
          params,
          p.redirectUri,
          flow.codeVerifier,
          requestOptions(as.token_endpoint ?? p.issuer),
        )
        const checked = await forTenant(p, as, response)
        const result = await oauth.processAuthorizationCodeResponse(
          checked,
          client(p),
          response,
          p.protocol === 'oidc' ? { expectedNonce: flow.nonce ?? oauth.expectNoNonce, requireIdToken: true } : undefined,
        )
        const tokens = {
          accessToken: result.access_token,
          refreshToken: result.refresh_token ?? null,
          expiresAt: typeof result.expires_in === 'number' ? new Date(deps.now().getTime() + result.expires_in * 1000) : null,
          scope: result.scope ?? null,
        }
        stage.now = 'profile'
        if (p.oauth2) {
          const profile = await p.oauth2.profile(result.access_token, AbortSignal.timeout(PROVIDER_TIMEOUT_MS))
          if (!profile) throw new FederationFailed('provider_error', 'no profile')
          return { issuer: p.issuer, profile, tokens }
        }
        // The ID token's signature, by a key of the provider's JWKS (never taken on trust from TLS alone).
        await oauth.validateApplicationLevelSignature(checked, response, requestOptions(checked.jwks_uri ?? p.issuer))
        return { issuer: checked.issuer, profile: await oidcProfile(p, checked, result), tokens }
      } catch (err) {
        if (err instanceof FederationFailed) throw err
        if (err instanceof oauth.AuthorizationResponseError) throw new FederationFailed('access_denied', reason(err))
        deps.log(`oauth ${p.id}: ${stage.now} refused: ${reason(err)}`)
        throw new FederationFailed('provider_error', reason(err))
      }
    },

    /** Whether the provider's metadata can be had now (discovery cached or retried). */
    metadata,
  }
}

export type RelyingParty = ReturnType<typeof relyingParty>
