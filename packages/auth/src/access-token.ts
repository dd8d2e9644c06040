/**
 * Access tokens: JWTs with `sub`, `sid`, `jti`, `iat`, `exp`, `iss`, `aud`, the session's last
 * proof as `auth_time` and `amr` (RFC 8176; a refresh copies them), and a `kid` header naming the
 * key that signed them. HS256 under `secret`, or, when `signingKeys` are given,
 * EdDSA or ES256 under the first of them (and HS256 no longer verifies at all). The first key
 * signs, every one verifies, so a key can be rotated without signing anyone out
 * (docs/reference/operations.md#rotating-the-secret, docs/guide/rotating-keys.md#rotating-signing-keys). The algorithm is pinned per key on verification, so `alg: none` and
 * algorithm confusion (an HS256 token whose HMAC key is a public key) are refused; so is a token
 * whose `kid` is missing, not a string, or names no current key.
 */
import { type CryptoKey, decodeProtectedHeader, importJWK, type JWK, jwtVerify, SignJWT } from 'jose'
import type { ResolvedSigningKey } from './signing-keys.js'
import type { AuthMethod } from './store/types.js'
import { hmacSha256Base64url } from './web.js'

export interface AccessClaims {
  sub: string
  sid: string
}

/** What a new token says: its session, and when and how that session last proved its holder. */
export interface SignedClaims extends AccessClaims {
  /** Becomes `auth_time`, in epoch seconds. */
  authenticatedAt: Date
  amr: readonly AuthMethod[]
}

export interface AccessTokens {
  sign(claims: SignedClaims): Promise<string>
  /** The claims of a valid token, or `null` for anything else. */
  verify(token: string): Promise<AccessClaims | null>
}

/** Verified tokens remembered at most; about 4 MB. */
const VERIFIED_MAX = 10_000

interface Verified {
  claims: AccessClaims
  /** `exp` and `nbf` in epoch seconds: the only checks whose outcome changes with the clock. */
  exp: number
  nbf: number | undefined
}

/**
 * The `kid` of a secret: 16 characters of an HMAC of a fixed label under the secret. It tells
 * the secrets apart and says nothing about them (never the key, nor a plain hash of it).
 */
export const keyIdOf = (secret: string): string => hmacSha256Base64url(secret, 'latchkey access-token key id').slice(0, 16)

/** A key as the tokens use it: its id, its pinned algorithm, and the key imported once. */
interface TokenKey {
  kid: string
  alg: 'HS256' | ResolvedSigningKey['alg']
  key: Promise<CryptoKey>
}

/**
 * The signing key and the verifying keys: the HMAC secrets, or, when `signingKeys` are given,
 * those alone. Imported once (given raw bytes or a JWK, jose would import again on every call).
 */
const tokenKeys = (
  secrets: readonly string[],
  signingKeys: readonly ResolvedSigningKey[] | null,
  log: (message: string) => void,
): { signer: TokenKey; verifiers: Map<string, TokenKey> } => {
  const imported = (what: string, key: Promise<CryptoKey>) => {
    // Surfaced here once; the token that needs the key fails on its own (500 to sign, 401 to verify).
    key.catch(() => log(`access tokens: ${what} could not be imported`))
    return key
  }
  const keys: TokenKey[] = signingKeys
    ? signingKeys.map(({ kid, alg, publicJwk }, i) => ({
        kid,
        alg,
        key: imported(`signingKeys[${i}]`, importJWK(publicJwk, alg) as Promise<CryptoKey>),
      }))
    : secrets.map((secret) => ({
        kid: keyIdOf(secret),
        alg: 'HS256',
        key: crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
          'sign',
          'verify',
        ]),
      }))
  const [first] = keys
  if (first === undefined) throw new TypeError('accessTokens: at least one secret or signing key is required')
  const signingJwk = signingKeys?.[0]?.privateJwk
  const signer = signingJwk
    ? {
        ...first,
        key: imported('signingKeys[0]', importJWK({ ...signingJwk, key_ops: undefined } as JWK, first.alg) as Promise<CryptoKey>),
      }
    : first
  return { signer, verifiers: new Map(keys.map((key) => [key.kid, key])) }
}

export const accessTokens = (opts: {
  /** The first signs; every one verifies (unless `signingKeys` are given). */
  secrets: readonly string[]
  /** Asymmetric keys, the signing one first: when given, they alone sign and verify. */
  signingKeys?: readonly ResolvedSigningKey[] | null
  issuer: string
  audience: string
  ttlSeconds: number
  now: () => Date
  log?: (message: string) => void
}): AccessTokens => {
  const { signer, verifiers } = tokenKeys(
    opts.secrets,
    opts.signingKeys ?? null,
    opts.log ?? ((message) => console.error(message)),
  )
  // A client sends the same token on every request of its 15 minutes. Its text was verified
  // once (WebCrypto, a thread-pool round trip each time); a repeat only re-runs the checks
  // that depend on the clock, exactly as jose makes them. Only verified tokens get in.
  const verified = new Map<string, Verified>()

  return {
    async sign({ sub, sid, authenticatedAt, amr }) {
      const iat = Math.floor(opts.now().getTime() / 1000)
      return new SignJWT({ sid, auth_time: Math.floor(authenticatedAt.getTime() / 1000), amr: [...amr] })
        .setProtectedHeader({ alg: signer.alg, typ: 'JWT', kid: signer.kid })
        .setSubject(sub)
        .setJti(crypto.randomUUID())
        .setIssuedAt(iat)
        .setExpirationTime(iat + opts.ttlSeconds)
        .setIssuer(opts.issuer)
        .setAudience(opts.audience)
        .sign(await signer.key)
    },
    async verify(token) {
      const now = opts.now()
      const known = verified.get(token)
      if (known) {
        const seconds = Math.floor(now.getTime() / 1000)
        if (known.exp > seconds && (known.nbf === undefined || known.nbf <= seconds)) return known.claims
        verified.delete(token)
        return null
      }
      try {
        const { kid } = decodeProtectedHeader(token)
        const key = typeof kid === 'string' ? verifiers.get(kid) : undefined
        if (!key) return null
        const { payload } = await jwtVerify(token, await key.key, {
          algorithms: [key.alg],
          issuer: opts.issuer,
          audience: opts.audience,
          requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
          currentDate: now,
        })
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') return null
        const claims = { sub: payload.sub, sid: payload.sid }
        // Emptied when full: cheaper than evicting one by one, and it simply refills.
        if (verified.size >= VERIFIED_MAX) verified.clear()
        verified.set(token, { claims, exp: payload.exp, nbf: payload.nbf })
        return claims
      } catch {
        return null
      }
    },
  }
}
