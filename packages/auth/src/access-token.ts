/**
 * Access tokens: HS256 JWTs with `sub`, `sid`, `jti`, `iat`, `exp`, `iss`, `aud`.
 * The algorithm is pinned on verification, so `alg: none` and algorithm confusion are refused.
 */
import { randomUUID, webcrypto } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'

export interface AccessClaims {
  sub: string
  sid: string
}

export interface AccessTokens {
  sign(claims: AccessClaims): Promise<string>
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

export const accessTokens = (opts: {
  secret: string
  issuer: string
  audience: string
  ttlSeconds: number
  now: () => Date
}): AccessTokens => {
  // Imported once: given raw bytes, jose imports the key again on every call.
  const key = webcrypto.subtle.importKey('raw', new TextEncoder().encode(opts.secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ])
  // A client sends the same token on every request of its 15 minutes. Its text was verified
  // once (WebCrypto, a thread-pool round trip each time); a repeat only re-runs the checks
  // that depend on the clock, exactly as jose makes them. Only verified tokens get in.
  const verified = new Map<string, Verified>()

  return {
    async sign({ sub, sid }) {
      const iat = Math.floor(opts.now().getTime() / 1000)
      return new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(sub)
        .setJti(randomUUID())
        .setIssuedAt(iat)
        .setExpirationTime(iat + opts.ttlSeconds)
        .setIssuer(opts.issuer)
        .setAudience(opts.audience)
        .sign(await key)
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
