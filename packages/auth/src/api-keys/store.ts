/**
 * The API-key facet of the {@link Store} (docs/guide/api-keys.md): personal access tokens, kept as
 * the SHA-256 of the key only. Creation is atomic against the per-account limit; a revoked key is
 * a deleted row, so the next lookup finds nothing; `lastUsedAt` moves by a compare-and-set, so
 * many requests at once write it once.
 */
import type { UserRecord } from '../store/users.js'

/** An API key as its owner may see it: never the key, never its hash. */
export interface ApiKeyRecord {
  id: string
  userId: string
  name: string
  /** The scopes it was given, each one the application declared. */
  scopes: string[]
  /** Its first 12 characters (`lk_` and 9 more), to tell it apart in a list. */
  prefix: string
  createdAt: Date
  expiresAt: Date
  /** The last request it authenticated, to the minute; `null` before the first. */
  lastUsedAt: Date | null
}

export interface NewApiKey extends Omit<ApiKeyRecord, 'lastUsedAt'> {
  /** SHA-256 hex of the key. */
  hash: string
}

export interface ApiKeyStore<U extends UserRecord = UserRecord> {
  /**
   * Stores the key unless the user already has `max` keys unexpired at `now`: then `false`,
   * writing nothing. Atomic: of concurrent creations at the limit, only those that fit are stored.
   */
  createApiKey(input: NewApiKey, max: number, now: Date): Promise<boolean>
  /** The key whose hash is `hash`, expired or not (the core judges), with its user as stored now; `null` when none. */
  findApiKey(hash: string): Promise<{ key: ApiKeyRecord; user: U } | null>
  /** The user's keys, newest first. */
  listApiKeys(userId: string): Promise<ApiKeyRecord[]>
  /** Deletes one of the user's keys; `false` when the user has none with this id. */
  deleteApiKey(userId: string, id: string): Promise<boolean>
  /**
   * Sets `lastUsedAt` to `now` unless it is already later than `since` (a compare-and-set):
   * answers whether it wrote.
   */
  touchApiKey(id: string, now: Date, since: Date): Promise<boolean>
  /** Deletes every key of the user (an account an operator disabled); answers how many. */
  revokeApiKeys(userId: string): Promise<number>
  /**
   * Deletes at most `limit` keys that expired at or before `expiredBy` (the core gives an expired
   * key a grace, docs/guide/api-keys.md#expiry, so its owner still sees it listed for a while);
   * answers how many (the sweep's batch: fewer than `limit` means none is left).
   */
  pruneApiKeys(expiredBy: Date, limit: number): Promise<number>
}
