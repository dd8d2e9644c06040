/**
 * The `providers` option (docs/guide/social-sign-in.md#configuration), checked once at
 * construction: each provider's id (it is a path segment and a redirect URI), its issuer (https,
 * or http on a loopback host only), its client credentials, and what it is trusted with.
 */
import { fail } from '../option-checks.js'

/** What a provider says about the person who signed in, after every check. */
export interface FederatedProfile {
  /** The provider's stable id of the person (`sub`; GitHub: the numeric user id). */
  subject: string
  email: string | null
  /** `true` only when the provider said so with the boolean `true`. */
  emailVerified: boolean
  name: string | null
}

interface ProviderBase {
  /** Lower-case letters, digits and dashes: it names the routes (`/auth/oauth/<id>`) and the redirect URI. */
  id: string
  /** Shown on the sign-in button. */
  name: string
  clientId: string
  clientSecret: string
  /** Default `openid email profile` (OpenID Connect). */
  scopes?: readonly string[]
  /**
   * This provider is trusted to say who owns an address: an unknown identity whose verified email
   * an account has is linked to it automatically. Default `false`: `?error=account_exists`.
   */
  linkByEmail?: boolean
  /** A first sign-in with an email no account has creates one. Default `true`. */
  signUp?: boolean
  /** Keep the provider's access and refresh tokens, sealed (read them with `auth.providerTokens`). Default `false`. */
  keepTokens?: boolean
}

/** A generic OpenID Connect provider: its endpoints come from `<issuer>/.well-known/openid-configuration`. */
export interface OidcProviderConfig extends ProviderBase {
  issuer: string
  /**
   * For a multi-tenant endpoint (Microsoft's `common`, `organizations`, `consumers`): the issuer
   * its metadata names, with `{tenantid}` in it. Each ID token's `iss` must then be that issuer
   * for the token's own `tid`, and the identity is (that issuer, `sub`).
   */
  tenantIssuer?: string
}

/** A plain OAuth 2.0 provider (GitHub): fixed endpoints and a function that reads the profile. */
export interface OAuth2ProviderConfig extends ProviderBase {
  oauth2: {
    /** Names the identity's issuer (`https://github.com`). */
    issuer: string
    authorizationEndpoint: string
    tokenEndpoint: string
    /** Reads the person's profile with the access token; `null` when the provider gave none. */
    profile(accessToken: string, signal: AbortSignal): Promise<FederatedProfile | null>
  }
}

export type ProviderConfig = OidcProviderConfig | OAuth2ProviderConfig

export interface ResolvedProvider {
  id: string
  name: string
  clientId: string
  clientSecret: string
  scopes: string[]
  linkByEmail: boolean
  signUp: boolean
  keepTokens: boolean
  /** OpenID Connect discovery from this issuer, or plain OAuth 2.0 with fixed endpoints. */
  protocol: 'oidc' | 'oauth2'
  issuer: string
  /** The metadata's issuer with `{tenantid}`, or `null` (a single issuer). */
  tenantIssuer: string | null
  oauth2: OAuth2ProviderConfig['oauth2'] | null
  /** `$publicUrl<cookiePath>/oauth/<id>/callback`. */
  redirectUri: string
}

export interface ProvidersOption {
  /**
   * Social sign-in (docs/guide/social-sign-in.md): OpenID Connect and OAuth 2.0 providers, in the
   * order the sign-in buttons list them. Ready configurations: `google()`, `microsoft()`,
   * `github()`; any other OpenID Connect provider by its issuer. Needs `publicUrl`.
   *
   * @example
   * providers: [google({ clientId, clientSecret }), { id: 'corp', name: 'Corp SSO', issuer: 'https://sso.corp.example', clientId, clientSecret }]
   */
  providers?: readonly ProviderConfig[]
}

export interface ResolvedProvidersOption {
  providers: ResolvedProvider[]
}

const ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/

const text = (option: string, value: unknown, max: number): string => {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) fail(option, `must be 1 to ${max} characters`)
  return value as string
}

/** An https URL, or http on a loopback host. */
export const providerUrl = (option: string, value: unknown): string => {
  let url: URL | null = null
  try {
    url = typeof value === 'string' ? new URL(value) : null
  } catch {}
  if (!url || url.search || url.hash) return fail(option, 'must be an absolute URL without query or fragment')
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    fail(option, 'must be https (plain http only on localhost, 127.0.0.0/8 or ::1)')
  return value as string
}

const tenantTemplate = (option: string, value: string) =>
  value.includes('{tenantid}') ? value : fail(option, 'must name {tenantid} where the tenant goes')

const resolveProvider = (entry: unknown, i: number, base: string): ResolvedProvider => {
  const at = `providers[${i}]`
  if (typeof entry !== 'object' || entry === null) return fail(at, 'must be a provider object')
  const config = entry as Partial<OidcProviderConfig & OAuth2ProviderConfig>
  if (typeof config.id !== 'string' || !ID.test(config.id) || config.id === 'providers')
    fail(`${at}.id`, "must be 1 to 32 lower-case letters, digits or dashes (and not 'providers')")
  const id = config.id as string
  const scopes = config.scopes ?? (config.oauth2 ? [] : ['openid', 'email', 'profile'])
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))
    fail(`${at}.scopes`, 'must be a list of scope names')
  for (const flag of ['linkByEmail', 'signUp', 'keepTokens'] as const)
    if (config[flag] !== undefined && typeof config[flag] !== 'boolean') fail(`${at}.${flag}`, 'must be true or false')
  const oauth2 = config.oauth2 ?? null
  if (oauth2) {
    providerUrl(`${at}.oauth2.authorizationEndpoint`, oauth2.authorizationEndpoint)
    providerUrl(`${at}.oauth2.tokenEndpoint`, oauth2.tokenEndpoint)
    if (typeof oauth2.profile !== 'function') fail(`${at}.oauth2.profile`, 'must be a function')
  }
  return {
    id,
    name: text(`${at}.name`, config.name, 64),
    clientId: text(`${at}.clientId`, config.clientId, 512),
    clientSecret: text(`${at}.clientSecret`, config.clientSecret, 1024),
    scopes: [...scopes],
    linkByEmail: config.linkByEmail ?? false,
    signUp: config.signUp ?? true,
    keepTokens: config.keepTokens ?? false,
    protocol: oauth2 ? 'oauth2' : 'oidc',
    issuer: providerUrl(oauth2 ? `${at}.oauth2.issuer` : `${at}.issuer`, oauth2 ? oauth2.issuer : config.issuer),
    tenantIssuer:
      config.tenantIssuer === undefined
        ? null
        : providerUrl(`${at}.tenantIssuer`, config.tenantIssuer) && tenantTemplate(`${at}.tenantIssuer`, config.tenantIssuer),
    oauth2,
    redirectUri: `${base}/oauth/${id}/callback`,
  }
}

export const resolveProvidersOption = (
  options: ProvidersOption & { publicUrl?: string; cookiePath?: string },
): ResolvedProvidersOption => {
  const listed = options.providers ?? []
  if (!Array.isArray(listed)) return fail('providers', 'must be a list of providers')
  if (listed.length === 0) return { providers: [] }
  if (options.publicUrl === undefined) fail('publicUrl', 'is required with `providers`: the redirect URIs are built from it')
  const base = `${String(options.publicUrl).replace(/\/+$/, '')}${options.cookiePath ?? '/auth'}`
  const providers = listed.map((entry, i) => resolveProvider(entry, i, base))
  const ids = new Set<string>()
  for (const [i, { id }] of providers.entries()) {
    if (ids.has(id)) fail(`providers[${i}].id`, `repeats '${id}'; each provider needs its own id`)
    ids.add(id)
  }
  return { providers }
}
