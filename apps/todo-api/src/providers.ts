/**
 * The reference app's social sign-in providers (docs/guide/social-sign-in.md#the-reference-server),
 * from the environment: `GOOGLE_`, `MICROSOFT_` and `GITHUB_CLIENT_ID`/`_CLIENT_SECRET` turn on
 * the ready configurations, and `AUTH_OIDC_PROVIDERS` (a JSON array of `{ id, name, issuer,
 * clientId, clientSecret, scopes?, linkByEmail?, signUp?, keepTokens? }`) any OpenID Connect
 * provider. A malformed value stops the start with one line naming the variable.
 */
import { github, google, microsoft, type OidcProviderConfig, type ProviderConfig } from '@latchkey/auth'
import { fail } from './config-values.js'

const ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/
const FIELDS: Record<string, 'string' | 'boolean' | 'strings'> = {
  id: 'string',
  name: 'string',
  issuer: 'string',
  clientId: 'string',
  clientSecret: 'string',
  scopes: 'strings',
  linkByEmail: 'boolean',
  signUp: 'boolean',
  keepTokens: 'boolean',
}
const REQUIRED = ['id', 'name', 'issuer', 'clientId', 'clientSecret']
/** The library's limits on a provider's text (packages/auth/src/oauth/options.ts): refused here, naming the variable. */
const MAX_LENGTH: Record<string, number> = { name: 64, clientId: 512, clientSecret: 1024 }
/** A scope name as RFC 6749 writes it: printable ASCII but space, `"` and `\`. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/

const checkedIssuer = (where: string, value: string) => {
  const url = URL.canParse(value) ? new URL(value) : null
  if (!url || url.search || url.hash || !(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname))))
    fail(`${where}.issuer must be an https URL (plain http only on localhost), got "${value.slice(0, 100)}"`)
}

/** One entry of `AUTH_OIDC_PROVIDERS`, checked field by field. */
const oidcEntry = (entry: unknown, i: number): OidcProviderConfig => {
  const where = `AUTH_OIDC_PROVIDERS[${i}]`
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return fail(`${where} must be an object { id, name, issuer, clientId, clientSecret }`)
  const fields = entry as Record<string, unknown>
  for (const [key, value] of Object.entries(fields)) {
    const kind = FIELDS[key]
    if (!kind) fail(`${where} has an unknown field "${key.slice(0, 40)}"`)
    const ok =
      kind === 'strings'
        ? Array.isArray(value) && value.every((s) => typeof s === 'string' && s !== '')
        : typeof value === kind && value !== ''
    if (!ok) fail(`${where}.${key} must be ${kind === 'strings' ? 'a list of scope names' : `a non-empty ${kind}`}`)
    if (kind === 'strings' && !(value as string[]).every((scope) => SCOPE.test(scope)))
      fail(`${where}.${key} must be a list of scope names (printable ASCII, no spaces, quotes or backslashes)`)
    const max = MAX_LENGTH[key]
    if (max !== undefined && ((value as string).trim() === '' || (value as string).length > max))
      fail(`${where}.${key} must be 1 to ${max} characters, not blank`)
  }
  for (const key of REQUIRED) if (fields[key] === undefined) fail(`${where}.${key} is required`)
  if (!ID.test(fields.id as string) || fields.id === 'providers')
    fail(`${where}.id must be 1 to 32 lower-case letters, digits or dashes`)
  checkedIssuer(where, fields.issuer as string)
  return fields as unknown as OidcProviderConfig
}

/** The providers the environment configures, in order: Google, Microsoft, GitHub, then `AUTH_OIDC_PROVIDERS`. */
export const parseProviders = (env: NodeJS.ProcessEnv): ProviderConfig[] => {
  const providers: ProviderConfig[] = []
  const ready = [
    ['GOOGLE', google],
    ['MICROSOFT', microsoft],
    ['GITHUB', github],
  ] as const
  for (const [prefix, make] of ready) {
    const clientId = env[`${prefix}_CLIENT_ID`]?.trim() ?? ''
    const clientSecret = env[`${prefix}_CLIENT_SECRET`]?.trim() ?? ''
    if (clientId === '' && clientSecret === '') continue
    if (clientId === '' || clientSecret === '')
      fail(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET go together: set both, or neither`)
    if (/\s/.test(clientId) || clientId.length > 512)
      fail(`${prefix}_CLIENT_ID must be the client id the provider gave, without spaces`)
    if (clientSecret.length > 1024) fail(`${prefix}_CLIENT_SECRET must be at most 1024 characters`)
    providers.push(make({ clientId, clientSecret }))
  }
  const raw = env.AUTH_OIDC_PROVIDERS?.trim() ?? ''
  if (raw !== '') {
    let listed: unknown
    try {
      listed = JSON.parse(raw)
    } catch {
      fail(
        'AUTH_OIDC_PROVIDERS must be a JSON array of { id, name, issuer, clientId, clientSecret } objects; it is not valid JSON',
      )
    }
    if (!Array.isArray(listed))
      fail('AUTH_OIDC_PROVIDERS must be a JSON array of { id, name, issuer, clientId, clientSecret } objects')
    providers.push(...(listed as unknown[]).map(oidcEntry))
  }
  const seen = new Set<string>()
  for (const { id } of providers) {
    if (seen.has(id))
      fail(
        `AUTH_OIDC_PROVIDERS repeats the provider id "${id}" (google, microsoft and github are taken when their variables are set)`,
      )
    seen.add(id)
  }
  return providers
}
