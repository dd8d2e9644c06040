/** The mail and events of API keys (docs/guide/api-keys.md), for the lists in `features.ts`. */
import type { Notice, UserEvent } from '../notify.js'

/** `keyId`: the id of an API key (never the key). */
type ApiKeyEvent<T extends string> = UserEvent<T> & { keyId: string }

/**
 * An API key was created (`name`, its `scopes`, when it expires, ISO 8601): a key the owner did
 * not make means someone else holds a session of theirs. Never the key.
 */
export type ApiKeyMail = Notice<'api-key-created'> & { name: string; scopes: string[]; expiresAt: string }

export type ApiKeysEvent =
  | ApiKeyEvent<'api_key.created'>
  /** Its owner revoked it (`DELETE /api-keys/{id}`). */
  | ApiKeyEvent<'api_key.revoked'>
