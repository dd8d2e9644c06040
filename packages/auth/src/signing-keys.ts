/**
 * Asymmetric signing keys for access tokens (`signingKeys`): private JWKs (RFC 7517) of EdDSA
 * over Ed25519 (RFC 8037) or ES256 over P-256 (RFC 7518), each named by its `kid`. The first
 * signs, every one verifies, and the public halves are published at `/.well-known/jwks.json`
 * so other services can verify tokens without holding a secret. A key listed after the first
 * is published and verifies but does not sign yet: that is how a key is published before it
 * is used (docs/guide/rotating-keys.md#rotating-signing-keys).
 */

/** Keys at most: a rotation needs two or three at a time. */
export const MAX_SIGNING_KEYS = 16
/** Characters of a `kid` at most. */
export const MAX_KID_LENGTH = 128

/** The algorithms a signing key may use; a JWK's `kty`/`crv` decide which. */
export type SigningAlgorithm = 'EdDSA' | 'ES256'

/**
 * A private signing key as a JWK: Ed25519 (`{ kty: 'OKP', crv: 'Ed25519', x, d, kid }`) or P-256
 * (`{ kty: 'EC', crv: 'P-256', x, y, d, kid }`), as `pnpm cli keys generate` or jose's
 * `exportJWK` of a generated private key print them. `alg`, when present, must match the curve.
 */
export interface SigningKey {
  kty: string
  crv: string
  kid: string
  x: string
  y?: string
  d: string
  alg?: string
  use?: string
  key_ops?: readonly string[]
  [member: string]: unknown
}

/** A public JWK as `/.well-known/jwks.json` publishes it: never a private member. */
export interface PublicJwk {
  kty: 'OKP' | 'EC'
  crv: 'Ed25519' | 'P-256'
  kid: string
  alg: SigningAlgorithm
  use: 'sig'
  x: string
  y?: string
}

export interface ResolvedSigningKey {
  kid: string
  alg: SigningAlgorithm
  /** The private JWK, as given (import it for signing only). */
  privateJwk: SigningKey
  publicJwk: PublicJwk
}

/** A base64url string of exactly `bytes` bytes (RFC 7515 §2, no padding). */
const isBase64url = (value: unknown, bytes: number): value is string =>
  typeof value === 'string' && value.length === Math.ceil((bytes * 4) / 3) && /^[A-Za-z0-9_-]+$/.test(value)

const CURVES = {
  Ed25519: { kty: 'OKP', alg: 'EdDSA', bytes: 32, members: ['x'] },
  'P-256': { kty: 'EC', alg: 'ES256', bytes: 32, members: ['x', 'y'] },
} as const

/**
 * Why a signing key is refused, or `null` with its algorithm when it is acceptable. Checked by
 * `createAuth` at construction; exported so an application can check its configuration (the
 * reference app names `AUTH_SIGNING_KEYS`). Never repeats key material.
 */
export const signingKeyProblem = (key: unknown): { problem: string } | { alg: SigningAlgorithm } => {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return { problem: 'must be a JWK object' }
  const jwk = key as Record<string, unknown>
  if (typeof jwk.kid !== 'string' || jwk.kid.trim() === '') return { problem: 'has no `kid`: every key needs a unique id' }
  if (jwk.kid.length > MAX_KID_LENGTH) return { problem: `has a \`kid\` longer than ${MAX_KID_LENGTH} characters` }
  if (jwk.kty === 'oct')
    return { problem: 'is a symmetric key (kty "oct"): use `secret` for HS256, or an EdDSA or ES256 key here' }
  const curve = typeof jwk.crv === 'string' ? CURVES[jwk.crv as keyof typeof CURVES] : undefined
  if (!curve || jwk.kty !== curve.kty)
    return {
      problem: 'has an unsupported key type or curve: use EdDSA (kty "OKP", crv "Ed25519") or ES256 (kty "EC", crv "P-256")',
    }
  if (jwk.alg !== undefined && jwk.alg !== curve.alg)
    return {
      problem: `has alg ${JSON.stringify(String(jwk.alg).slice(0, 20))}, which its curve ${jwk.crv} does not use (${curve.alg})`,
    }
  if (jwk.use !== undefined && jwk.use !== 'sig') return { problem: 'has a `use` other than "sig"' }
  if (jwk.d === undefined)
    return { problem: 'is a public key only: give the private key (with `d`); the public half is published for you' }
  for (const member of [...curve.members, 'd'])
    if (!isBase64url(jwk[member], curve.bytes))
      return { problem: `has a malformed \`${member}\` (base64url of ${curve.bytes} bytes)` }
  return { alg: curve.alg }
}

/** The public half of an accepted key, member by member, so nothing private can slip through. */
const publicHalf = (jwk: SigningKey, alg: SigningAlgorithm): PublicJwk =>
  alg === 'EdDSA'
    ? { kty: 'OKP', crv: 'Ed25519', kid: jwk.kid, alg, use: 'sig', x: jwk.x }
    : { kty: 'EC', crv: 'P-256', kid: jwk.kid, alg, use: 'sig', x: jwk.x, y: jwk.y as string }

/**
 * Checks `signingKeys` (a non-empty list; `fail` names the option and position) and returns the
 * keys, the signing one first.
 */
export const resolveSigningKeys = (value: unknown, fail: (option: string, why: string) => never): ResolvedSigningKey[] => {
  if (!Array.isArray(value) || value.length === 0)
    return fail('signingKeys', 'must be a non-empty list of private JWKs (EdDSA Ed25519 or ES256), the signing key first')
  if (value.length > MAX_SIGNING_KEYS)
    fail('signingKeys', `holds more than ${MAX_SIGNING_KEYS} keys (a rotation needs two or three)`)
  const keys: ResolvedSigningKey[] = []
  for (const [i, key] of (value as unknown[]).entries()) {
    const checked = signingKeyProblem(key)
    if ('problem' in checked) return fail(`signingKeys[${i}]`, checked.problem)
    const jwk = key as SigningKey
    if (keys.some((k) => k.kid === jwk.kid))
      fail(`signingKeys[${i}]`, `repeats the kid ${JSON.stringify(jwk.kid)} of an earlier key`)
    if (keys.some((k) => k.publicJwk.x === jwk.x))
      fail(`signingKeys[${i}]`, 'is the same key as an earlier one under another kid')
    keys.push({ kid: jwk.kid, alg: checked.alg, privateJwk: jwk, publicJwk: publicHalf(jwk, checked.alg) })
  }
  return keys
}
