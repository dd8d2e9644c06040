/** A fast, salted SHA-256 hasher for tests where the hash itself is not under test. Never for production. */
import type { PasswordHasher } from '../password.js'
import { base64url, randomBytes, sha256Base64url } from '../web.js'

const digest = (salt: string, password: string) => sha256Base64url(salt + password)

/**
 * @example
 * createAuth({ ...options, hasher: fastHasher() })
 */
export const fastHasher = (): PasswordHasher => ({
  async hash(password) {
    const salt = base64url(randomBytes(16))
    return `$fast$${salt}$${digest(salt, password)}`
  },
  async verify(stored, password) {
    const [, kind, salt, expected] = stored.split('$')
    if (kind !== 'fast' || !salt || !expected) return false
    // Both are base64url of 32 bytes: compare every character, whatever differs first.
    const actual = digest(salt, password)
    let diff = actual.length ^ expected.length
    for (let i = 0; i < actual.length; i++) diff |= actual.charCodeAt(i) ^ expected.charCodeAt(i)
    return diff === 0
  },
  needsRehash: () => false,
})
