/**
 * The API-key rules in one place (docs/guide/api-keys.md): what a presented key is worth (shape and
 * checksum first, without a lookup; then one indexed read by its SHA-256; expired is refused), how
 * often its use is written down, what a new key gets, and which routes a key may call at all. The
 * store keeps facts; the guard and the routes ask here.
 */
import { isDisabled } from '../account-disabled.js'
import { AuthError } from '../errors.js'
import type { CredentialDemand } from '../header-credential.js'
import { tokenHash } from '../opaque-token.js'
import type { UserRecord } from '../store/users.js'
import { isWellFormedKey, newApiKey, shownPrefix } from './key-format.js'
import type { ApiKeyRecord, ApiKeyStore } from './store.js'

/** Most live (unexpired) keys an account holds. */
export const MAX_KEYS = 50
/** Days a key lives unless its creation says otherwise, and the most it may say. */
export const DEFAULT_DAYS = 90
export const MAX_DAYS = 365
/** `lastUsedAt` is written at most this often per key: a key in a busy loop costs no write per request. */
export const USE_RESOLUTION_MS = 60_000
const DAY_MS = 86_400_000
/**
 * How long an expired key stays (listed, marked by its `expiresAt`, refused on every request)
 * before the sweep deletes it: 30 days, so its owner still sees why a script stopped
 * (docs/guide/api-keys.md#expiry). A revoked key's row is deleted at once.
 */
export const EXPIRED_KEY_GRACE_MS = 30 * DAY_MS

export const sessionRequired = () =>
  new AuthError('session_required', {
    detail:
      'An API key cannot call this route: it needs a signed-in session (a key never makes keys, changes the account or reads its sessions).',
  })

/** 403 with RFC 6750's challenge: the key lacks `scope`, or the route takes no keys (`scope` undefined). */
export const insufficientScope = (scope: string | undefined) =>
  new AuthError('insufficient_scope', {
    detail: scope === undefined ? 'This route does not accept API keys.' : `This API key does not have the "${scope}" scope.`,
    headers: {
      'WWW-Authenticate':
        scope === undefined ? 'Bearer error="insufficient_scope"' : `Bearer error="insufficient_scope", scope="${scope}"`,
    },
  })

/**
 * Whether a live key may call a route: throws its 403 when not. A `fresh` route needs a session's
 * recent proof, which a key never has.
 */
export const admitKey = (key: ApiKeyRecord, demand: CredentialDemand) => {
  if (demand.keys === 'session' || demand.fresh !== undefined) throw sessionRequired()
  if (demand.keys === 'any') return
  if (demand.scope === undefined || !key.scopes.includes(demand.scope)) throw insufficientScope(demand.scope)
}

export const apiKeyCore = <U extends UserRecord>({ store, now }: { store: ApiKeyStore<U>; now: () => Date }) => ({
  /**
   * The live key `presented` is, with its user as stored now: `null` for a malformed one (no
   * lookup), an unknown, revoked or expired one. Its use is written when the last one written is
   * a minute old or more.
   */
  async verify(presented: string): Promise<{ key: ApiKeyRecord; user: U } | null> {
    if (!isWellFormedKey(presented)) return null
    const found = await store.findApiKey(tokenHash(presented))
    const at = now().getTime()
    // A disabled account's keys were revoked with it; its row is read anyway, so that is backed up here.
    if (!found || found.key.expiresAt.getTime() <= at || isDisabled(found.user)) return null
    const last = found.key.lastUsedAt?.getTime()
    if (last === undefined || at - last >= USE_RESOLUTION_MS)
      await store.touchApiKey(found.key.id, new Date(at), new Date(at - USE_RESOLUTION_MS))
    return found
  },

  /** A new key for `userId`: the record stored (by hash) and the key, or `null` when the account holds {@link MAX_KEYS} live keys. */
  async create(input: { userId: string; name: string; scopes: string[]; expiresInDays: number }) {
    const key = newApiKey()
    const createdAt = now()
    const record: ApiKeyRecord = {
      id: crypto.randomUUID(),
      userId: input.userId,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      prefix: shownPrefix(key),
      createdAt,
      expiresAt: new Date(createdAt.getTime() + input.expiresInDays * DAY_MS),
      lastUsedAt: null,
    }
    const { lastUsedAt: _, ...stored } = record
    if (!(await store.createApiKey({ ...stored, hash: tokenHash(key) }, MAX_KEYS, createdAt))) return null
    return { record, key }
  },
})

export type ApiKeyCore<U extends UserRecord> = ReturnType<typeof apiKeyCore<U>>
