/**
 * Access tokens: HS256 JWTs with `sub`, `sid`, `jti`, `iat`, `exp`, `iss`, `aud`, the session's
 * last proof as `auth_time` and `amr` (RFC 8176; a refresh copies them), and a `kid` header
 * naming the secret that signed them. The first secret signs, every one verifies, so a
 * secret can be rotated without signing anyone out (docs/reference/operations.md#rotating-the-secret). The algorithm is pinned on
 * verification, so `alg: none` and algorithm confusion are refused; so is a token whose `kid` is
 * missing, not a string, or names no current secret.
 */
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose'
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

export const accessTokens = (opts: {
  /** The first signs; every one verifies. */
  secrets: readonly string[]
  issuer: string
  audience: string
  ttlSeconds: number
  now: () => Date
}): AccessTokens => {
  // Imported once: given raw bytes, jose imports the key again on every call.
  const importKey = (secret: string) =>
    crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
  const [signer] = opts.secrets
  if (signer === undefined) throw new TypeError('accessTokens: at least one secret is required')
  const signingKid = keyIdOf(signer)
  const signingKey = importKey(signer)
  const keys = new Map(opts.secrets.map((secret) => [keyIdOf(secret), importKey(secret)]))
  // A client sends the same token on every request of its 15 minutes. Its text was verified
  // once (WebCrypto, a thread-pool round trip each time); a repeat only re-runs the checks
  // that depend on the clock, exactly as jose makes them. Only verified tokens get in.
  const verified = new Map<string, Verified>()

  return {
    async sign({ sub, sid, authenticatedAt, amr }) {
      const iat = Math.floor(opts.now().getTime() / 1000)
      return new SignJWT({ sid, auth_time: Math.floor(authenticatedAt.getTime() / 1000), amr: [...amr] })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: signingKid })
        .setSubject(sub)
        .setJti(crypto.randomUUID())
        .setIssuedAt(iat)
        .setExpirationTime(iat + opts.ttlSeconds)
        .setIssuer(opts.issuer)
        .setAudience(opts.audience)
        .sign(await signingKey)
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
        const key = typeof kid === 'string' ? keys.get(kid) : undefined
        if (!key) return null
        const { payload } = await jwtVerify(token, await key, {
          algorithms: ['HS256'],
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
