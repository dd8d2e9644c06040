/**
 * The options of what the library signs and seals with: the signing secrets (`secret`), the keys
 * that seal stored data (`encryptionKeys`), asymmetric signing keys (`signingKeys`, checked in
 * `signing-keys.ts`), and the `iss` and `aud` access tokens carry. A weak or repeated key fails
 * when the app is wired (docs/guide/rotating-keys.md).
 */
import { fail } from './option-checks.js'
import { type ResolvedSigningKey, resolveSigningKeys, type SigningKey } from './signing-keys.js'

export interface TokenOptions {
  /**
   * HMAC secret for access tokens, at least 32 characters and not trivially low-entropy. No
   * default. A list rotates secrets without signing anyone out: the first signs, every one
   * verifies, each token names its secret in its `kid` header.
   */
  secret: string | readonly string[]
  /**
   * Keys of the data the library seals (the TOTP keys, providers' kept tokens), each at least 32 characters and not
   * trivially low-entropy, none of them a signing secret. A list rotates them: the first seals,
   * every one opens, and the sweep seals again under the first whatever another key sealed
   * (`auth.sealedUnderOldKeys()` counts what is left). Apart from `secret`, so rotating or
   * dropping a signing secret never touches sealed data. Without it (not recommended; logged once
   * at start) the first signing secret seals, as 0.1 did, and dropping a signing secret is only
   * safe once `sealedUnderOldKeys()` is 0.
   */
  encryptionKeys?: string | readonly string[]
  /**
   * Asymmetric keys for access tokens instead of HS256, so other services can verify them
   * (`@latchkey/verify`) from the public keys at `GET /.well-known/jwks.json` (mount
   * `auth.wellKnown` at the root). Private JWKs, EdDSA (Ed25519) or ES256 (P-256), each with a
   * unique `kid`. The first signs; every one verifies and is published, so a key listed after
   * the first is published before it signs. Once given, HS256 tokens are refused. `secret` is
   * still required: it encrypts second-factor secrets.
   *
   * @example
   * signingKeys: JSON.parse(process.env.AUTH_SIGNING_KEYS) // [{ kty: 'OKP', crv: 'Ed25519', kid: '2026-11', x, d }]
   */
  signingKeys?: readonly SigningKey[]
  /** `iss` and `aud` of access tokens. Default `latchkey`. */
  issuer?: string
  audience?: string
}

export interface ResolvedTokenOptions {
  /** The signing secret first. */
  secrets: string[]
  /** The sealing key first; `null` when none was given (the signing secrets seal). */
  encryptionKeys: string[] | null
  /** The asymmetric keys, the signing one first, or `null` for HS256 under `secrets`. */
  signingKeys: ResolvedSigningKey[] | null
  issuer: string
  audience: string
}

/** Shannon estimate of a string's information: its length times the entropy of its character frequencies. */
const estimatedBits = (s: string): number => {
  const counts = new Map<string, number>()
  let n = 0
  for (const ch of s) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1)
    n++
  }
  let bits = 0
  for (const count of counts.values()) bits -= count * Math.log2(count / n)
  return bits
}

/**
 * Why a signing secret is refused, or `null` when it is acceptable: shorter than 32 characters,
 * one short pattern repeated, or fewer than 80 bits by a character-frequency estimate (RFC 8725
 * §3.5: an HMAC key must not be guessable). Random values pass: `openssl rand -hex 16` (the
 * weakest common form) estimates at 91 bits or more, `openssl rand -base64 32` at over 170.
 */
export const secretWeakness = (secret: string): string | null => {
  if (secret.length < 32) return `must be at least 32 characters (it has ${secret.length})`
  const repeated = (secret + secret).indexOf(secret, 1) < secret.length
  if (repeated || estimatedBits(secret) < 80)
    return 'has too little entropy (a repeated character or pattern); use a random value such as `openssl rand -base64 32`'
  return null
}

/** The secrets, the signing one first; a bad one is named by its position (`secret[1]`). */
const resolveSecrets = (secret: unknown): string[] => {
  const required = 'is required (set AUTH_SECRET to a random string of at least 32 characters)'
  if (typeof secret === 'string') {
    if (secret.length === 0) fail('secret', required)
    const weakness = secretWeakness(secret)
    if (weakness) fail('secret', weakness)
    return [secret]
  }
  if (!Array.isArray(secret) || secret.length === 0) return fail('secret', required)
  const listed: readonly unknown[] = secret
  const secrets: string[] = []
  for (const [i, s] of listed.entries()) {
    if (typeof s !== 'string') return fail(`secret[${i}]`, 'must be a string')
    const weakness = secretWeakness(s)
    if (weakness) fail(`secret[${i}]`, weakness)
    if (secrets.includes(s)) fail(`secret[${i}]`, 'repeats an earlier secret')
    secrets.push(s)
  }
  return secrets
}

/**
 * The encryption keys, the sealing one first; `null` when none were given. Each is checked like a
 * signing secret, and none may be one: the point is to keep them apart.
 */
const resolveEncryptionKeys = (value: unknown, secrets: readonly string[]): string[] | null => {
  if (value === undefined) return null
  const list: readonly unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : []
  if (list.length === 0) fail('encryptionKeys', 'must be a key of at least 32 characters, or a non-empty list of them')
  const keys: string[] = []
  for (const [i, key] of list.entries()) {
    const option = typeof value === 'string' ? 'encryptionKeys' : `encryptionKeys[${i}]`
    if (typeof key !== 'string') return fail(option, 'must be a string')
    const weakness = secretWeakness(key)
    if (weakness) fail(option, weakness)
    if (keys.includes(key)) fail(option, 'repeats an earlier key')
    if (secrets.includes(key)) fail(option, 'must not be one of the signing secrets (`secret`)')
    keys.push(key)
  }
  return keys
}

/** Checks the keys (`options` may be missing altogether: the secret is named first). */
export const resolveTokenOptions = (options: TokenOptions | undefined): ResolvedTokenOptions => {
  const secrets = resolveSecrets(options?.secret)
  const given = options as TokenOptions
  return {
    secrets,
    encryptionKeys: resolveEncryptionKeys(given.encryptionKeys, secrets),
    signingKeys: given.signingKeys === undefined ? null : resolveSigningKeys(given.signingKeys, fail),
    issuer: given.issuer ?? 'latchkey',
    audience: given.audience ?? 'latchkey',
  }
}
