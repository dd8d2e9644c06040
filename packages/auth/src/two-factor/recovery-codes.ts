/**
 * Recovery codes (docs/reference/two-factor.md#recovery-codes): ten single-use codes shown once, each 12 characters of
 * Crockford's base32 (60 random bits; no I, L, O or U to misread), written `xxxx-xxxx-xxxx`.
 * Stored as SHA-256 of the user id and the code: a random 60-bit value needs no slow hash, and
 * the user id keeps one table scan from testing a guess against every account at once.
 */
import { tokenHash } from '../opaque-token.js'

export const RECOVERY_CODE_COUNT = 10
const LENGTH = 12
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'

/** A new code, `xxxx-xxxx-xxxx`. 32 divides 256, so every character is uniform. */
const newCode = (): string => {
  const chars = Array.from(crypto.getRandomValues(new Uint8Array(LENGTH)), (byte) => ALPHABET[byte % 32])
  return [0, 4, 8].map((at) => chars.slice(at, at + 4).join('')).join('-')
}

/** A fresh set of codes, distinct. */
export const newRecoveryCodes = (): string[] => {
  const codes = new Set<string>()
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode())
  return [...codes]
}

/**
 * The code as typed, in its canonical form: any case, with or without hyphens and spaces, with
 * the look-alikes Crockford's alphabet maps (`o` → `0`, `i` and `l` → `1`). `null` when it cannot be one.
 */
export const canonicalRecoveryCode = (typed: string): string | null => {
  const code = typed.toLowerCase().replace(/[\s-]/g, '').replaceAll('o', '0').replace(/[il]/g, '1')
  return code.length === LENGTH && [...code].every((ch) => ALPHABET.includes(ch)) ? code : null
}

/** What the store keeps of a (canonical) code of `userId`. */
export const recoveryCodeHash = (userId: string, canonical: string): string => tokenHash(`${userId}:${canonical}`)
