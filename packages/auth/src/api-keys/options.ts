/**
 * The `apiKeys` option (docs/guide/api-keys.md#turning-them-on), checked once at construction:
 * the scopes an application declares, each a name a route may demand (`scope: 'todos:read'`) and
 * a description its owner reads when ticking it. The names type the routes' `scope` option the
 * way policy names type `auth`, so a mistyped scope does not compile.
 */
import { fail } from '../option-checks.js'

/** The slice of `createAuth`'s options that turns API keys on. */
export interface ApiKeysOption<Scope extends string = never> {
  /**
   * API keys (personal access tokens, docs/guide/api-keys.md): without this option their routes
   * are not mounted and every `lk_` bearer value is refused. `scopes` maps each scope name (an
   * RFC 6749 scope token: printable ASCII without spaces, quotes or backslashes, at most 64
   * characters) to what it allows, in words for people.
   *
   * @example
   * apiKeys: { scopes: { 'todos:read': 'Read your todos', 'todos:write': 'Create, change and delete your todos' } }
   */
  apiKeys?: { scopes: Record<Scope, string> }
}

export interface ResolvedApiKeysOption {
  /** `null`: API keys are off. */
  apiKeys: { scopes: ReadonlyMap<string, string> } | null
}

/** RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`, kept short. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/

export const resolveApiKeysOption = (options: { apiKeys?: { scopes: Record<string, string> } }): ResolvedApiKeysOption => {
  if (options.apiKeys === undefined) return { apiKeys: null }
  const scopes = (options.apiKeys as { scopes?: unknown } | null)?.scopes
  if (typeof scopes !== 'object' || scopes === null || Array.isArray(scopes))
    return fail('apiKeys.scopes', "must map each scope name to its description, e.g. { 'todos:read': 'Read your todos' }")
  const entries = Object.entries(scopes as Record<string, unknown>)
  if (entries.length === 0) fail('apiKeys.scopes', 'must declare at least one scope')
  for (const [name, description] of entries) {
    if (!SCOPE.test(name))
      fail(`apiKeys.scopes.${name}`, 'must be 1 to 64 printable ASCII characters without spaces, quotes or backslashes')
    if (typeof description !== 'string' || description.trim() === '' || description.length > 200)
      fail(`apiKeys.scopes.${name}`, 'must be described in 1 to 200 characters')
  }
  return { apiKeys: { scopes: new Map(entries as [string, string][]) } }
}
