/** A fast, salted SHA-256 hasher for tests where the hash itself is not under test. Never for production. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { PasswordHasher } from '../password.js'

const digest = (salt: string, password: string) => createHash('sha256').update(salt).update(password).digest('base64url')

/**
 * @example
 * createAuth({ ...options, hasher: fastHasher() })
 */
export const fastHasher = (): PasswordHasher => ({
  async hash(password) {
    const salt = randomBytes(16).toString('base64url')
    return `$fast$${salt}$${digest(salt, password)}`
  },
  async verify(stored, password) {
    const [, kind, salt, expected] = stored.split('$')
    if (kind !== 'fast' || !salt || !expected) return false
    const actual = Buffer.from(digest(salt, password))
    const wanted = Buffer.from(expected)
    return actual.length === wanted.length && timingSafeEqual(actual, wanted)
  },
  needsRehash: () => false,
})
