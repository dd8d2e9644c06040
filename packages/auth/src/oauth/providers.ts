/**
 * Ready configurations (docs/guide/social-sign-in.md#ready-providers): Google and Microsoft are
 * OpenID Connect providers found by discovery; GitHub is plain OAuth 2.0, whose identity is the
 * numeric user id and whose email is the primary address, only when GitHub marks it verified.
 */
import type { FederatedProfile, OAuth2ProviderConfig, OidcProviderConfig } from './options.js'

/** What a ready configuration takes: the client's credentials, and optionally what to trust it with. */
export type ReadyProviderOptions = Pick<
  OidcProviderConfig,
  'clientId' | 'clientSecret' | 'scopes' | 'linkByEmail' | 'signUp' | 'keepTokens'
> & { id?: string; name?: string }

/**
 * Google (OpenID Connect, `https://accounts.google.com`). Register a web client in the Google
 * Cloud console with the redirect URI `$PUBLIC_URL/auth/oauth/google/callback`.
 */
export const google = ({ id = 'google', name = 'Google', ...rest }: ReadyProviderOptions): OidcProviderConfig => ({
  id,
  name,
  issuer: 'https://accounts.google.com',
  ...rest,
})

/** Personal Microsoft accounts live in one tenant of their own; `consumers` is its issuer. */
const CONSUMERS_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad'

/**
 * Microsoft Entra ID and personal Microsoft accounts (OpenID Connect). `tenant` is a tenant id (a
 * GUID: one organisation), `consumers` (personal accounts), or `common` (default) or
 * `organizations`: for those two the metadata names `{tenantid}`, and each ID token's issuer must
 * be the one of its own tenant (`tid`), so the identity is (that issuer, sub).
 */
export const microsoft = ({
  id = 'microsoft',
  name = 'Microsoft',
  tenant = 'common',
  ...rest
}: ReadyProviderOptions & { tenant?: string }): OidcProviderConfig => {
  const multi = tenant === 'common' || tenant === 'organizations'
  const segment = tenant === 'consumers' ? CONSUMERS_TENANT : encodeURIComponent(tenant)
  return {
    id,
    name,
    issuer: `https://login.microsoftonline.com/${segment}/v2.0`,
    ...(multi ? { tenantIssuer: 'https://login.microsoftonline.com/{tenantid}/v2.0' } : {}),
    ...rest,
  }
}

interface GitHubEmail {
  email?: unknown
  primary?: unknown
  verified?: unknown
}

const getJson = async (url: string, accessToken: string, signal: AbortSignal): Promise<unknown> => {
  const res = await fetch(url, {
    headers: {
      Authorization: `Bearer ${accessToken}`,
      Accept: 'application/vnd.github+json',
      'User-Agent': 'latchkey',
    },
    signal,
  })
  if (!res.ok) throw new Error(`GitHub answered ${res.status}`)
  return res.json()
}

/**
 * GitHub (plain OAuth 2.0, with PKCE). Register an OAuth app with the callback URL
 * `$PUBLIC_URL/auth/oauth/github/callback`. `webUrl` and `apiUrl` point at GitHub Enterprise
 * Server (or a test double).
 */
export const github = ({
  id = 'github',
  name = 'GitHub',
  webUrl = 'https://github.com',
  apiUrl = 'https://api.github.com',
  ...rest
}: ReadyProviderOptions & { webUrl?: string; apiUrl?: string }): OAuth2ProviderConfig => ({
  id,
  name,
  scopes: ['read:user', 'user:email'],
  ...rest,
  oauth2: {
    issuer: webUrl,
    authorizationEndpoint: `${webUrl}/login/oauth/authorize`,
    tokenEndpoint: `${webUrl}/login/oauth/access_token`,
    async profile(accessToken, signal): Promise<FederatedProfile | null> {
      const user = (await getJson(`${apiUrl}/user`, accessToken, signal)) as { id?: unknown; name?: unknown; login?: unknown }
      if (typeof user?.id !== 'number' || !Number.isSafeInteger(user.id)) return null
      const emails = await getJson(`${apiUrl}/user/emails`, accessToken, signal)
      const primary = Array.isArray(emails)
        ? (emails as GitHubEmail[]).find((e) => e?.primary === true && e.verified === true && typeof e.email === 'string')
        : undefined
      const shown = typeof user.name === 'string' && user.name.trim() ? user.name : user.login
      return {
        subject: String(user.id),
        email: (primary?.email as string | undefined) ?? null,
        emailVerified: primary !== undefined,
        name: typeof shown === 'string' ? shown : null,
      }
    },
  },
})
