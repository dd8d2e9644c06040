/**
 * Access tokens: HS256 JWTs with `sub`, `sid`, `jti`, `iat`, `exp`, `iss`, `aud`.
 * The algorithm is pinned on verification, so `alg: none` and algorithm confusion are refused.
 */
import { randomUUID } from 'node:crypto'
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

export const accessTokens = (opts: {
  secret: string
  issuer: string
  audience: string
  ttlSeconds: number
  now: () => Date
}): AccessTokens => {
  const key = new TextEncoder().encode(opts.secret)
  return {
    sign: ({ sub, sid }) => {
      const iat = Math.floor(opts.now().getTime() / 1000)
      return new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(sub)
        .setJti(randomUUID())
        .setIssuedAt(iat)
        .setExpirationTime(iat + opts.ttlSeconds)
        .setIssuer(opts.issuer)
        .setAudience(opts.audience)
        .sign(key)
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: opts.issuer,
          audience: opts.audience,
          requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
          currentDate: opts.now(),
        })
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null
        return { sub: payload.sub, sid: payload.sid }
      } catch {
        return null
      }
    },
  }
}
