/**
 * `createVerifier`: checks access tokens of a Latchkey server from its published public keys
 * (`/.well-known/jwks.json`), with Web APIs only (Node, Bun, Deno, Cloudflare Workers). jose
 * fetches the key set and does the cryptography. The key set is cached and fetched again on an
 * unknown `kid` at most once per cooldown, so a flood of forged `kid`s cannot turn into a flood of
 * fetches; a failed fetch holds off fetching for a while, never the keys already held, so a forged
 * `kid` during an outage of the key set refuses only itself (docs/guide/other-services.md).
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose'
import { VerifyError } from './errors.js'

/** The claims of a verified Latchkey access token. */
export interface AccessClaims {
  /** The user id. */
  sub: string
  /** The session id. */
  sid: string
  /** Unique per token. */
  jti: string
  /** Issued at, in seconds since the epoch. */
  iat: number
  /** Expires at, in seconds since the epoch. */
  exp: number
  iss: string
  aud: string | string[]
  /** When the session last proved who it is (seconds since the epoch), where the server sends it. */
  auth_time?: number
  /** How it proved it (`pwd`, `otp`, `hwk`, `user`, `email`, `mfa`), where the server sends it. */
  amr?: string[]
  /** Claims a later server may add. */
  [claim: string]: unknown
}

export interface VerifierOptions {
  /** Where the server publishes its keys: `https://auth.example.com/.well-known/jwks.json`. Plain http only to loopback. */
  jwksUrl: string | URL
  /** The `iss` tokens must carry (the server's `issuer`; `latchkey` unless configured). */
  issuer: string
  /** The `aud` tokens must carry (the server's `audience`; `latchkey` unless configured). */
  audience: string
  /** Seconds of clock difference allowed on `exp` and `nbf` (`iat` is not checked: a token is judged by its expiry). Default 0. */
  clockTolerance?: number
  /**
   * Seconds after which the key set is fetched again (behind the answer of the token that finds it
   * older). Default 300, as the server's `Cache-Control`. While it cannot be fetched, the keys
   * last fetched keep verifying.
   */
  cacheMaxAge?: number
  /** Seconds after a fetch during which an unknown `kid` does not fetch again (it is refused). Default 30. */
  cooldown?: number
  /** Seconds a key-set fetch may take. Default 5. */
  timeout?: number
}

export interface Verifier {
  /**
   * The claims of a valid token; throws {@link VerifyError} for anything else. The signature, the
   * algorithm (EdDSA or ES256 only), `kid`, `iss`, `aud`, `exp` and the Latchkey claims are
   * checked. A revoked session's token stays valid here until it expires: only the Latchkey
   * server knows about revocations.
   */
  verify(token: string): Promise<AccessClaims>
}

const ALGORITHMS = ['EdDSA', 'ES256']
/** After a failed fetch, no fetch for this long (a token whose `kid` is not held is refused with `jwks_unavailable`). */
const FAILURE_BACKOFF_MS = 5_000

const fail = (option: string, why: string): never => {
  throw new TypeError(`createVerifier: option \`${option}\` ${why}`)
}

const seconds = (option: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(option, 'must be a non-negative number of seconds')
  return value
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/

const jwksUrlOf = (value: unknown): URL => {
  // URL.canParse, not URL.parse: Node 20 has only the former.
  const url = (typeof value === 'string' || value instanceof URL) && URL.canParse(value) ? new URL(value) : null
  if (!url) return fail('jwksUrl', 'must be an absolute URL such as https://auth.example.com/.well-known/jwks.json')
  // Keys fetched over plain http could be swapped on the way, and with them every token's meaning.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    fail('jwksUrl', 'must use https (plain http only to localhost)')
  return url
}

/** The claims, checked for the types the Latchkey server gives them. */
const accessClaims = (payload: JWTPayload): AccessClaims => {
  const { sub, sid, jti, auth_time, amr } = payload
  const wrong = (claim: string) =>
    new VerifyError('invalid_claims', `the token's \`${claim}\` claim is missing or of the wrong type`)
  if (typeof sub !== 'string') throw wrong('sub')
  if (typeof sid !== 'string') throw wrong('sid')
  if (typeof jti !== 'string') throw wrong('jti')
  if (auth_time !== undefined && typeof auth_time !== 'number') throw wrong('auth_time')
  if (amr !== undefined && !(Array.isArray(amr) && amr.every((m) => typeof m === 'string'))) throw wrong('amr')
  return payload as AccessClaims
}

/** jose's reasons, as our codes. */
const refusal = (err: unknown): VerifyError => {
  if (err instanceof VerifyError) return err
  if (err instanceof errors.JWTExpired) return new VerifyError('expired', 'the token has expired', { cause: err })
  if (err instanceof errors.JWTClaimValidationFailed)
    return new VerifyError('invalid_claims', `the token's \`${err.claim}\` claim is not accepted (${err.reason})`, { cause: err })
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new VerifyError('algorithm_not_allowed', 'the token is not signed with EdDSA or ES256', { cause: err })
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return new VerifyError('unknown_key', "no published key has the token's kid", { cause: err })
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new VerifyError('invalid_signature', 'the signature does not match', { cause: err })
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid || err instanceof errors.JOSENotSupported)
    return new VerifyError('malformed', 'the token is not a well-formed JWT', { cause: err })
  return new VerifyError('malformed', 'the token could not be read', { cause: err })
}

/**
 * A verifier of access tokens from a Latchkey server, for another service. Checks its options
 * at once (a `TypeError` names the bad one); fetches the key set on first use.
 *
 * @example
 * import { createVerifier } from '@latchkey/verify'
 *
 * const verifier = createVerifier({
 *   jwksUrl: 'https://auth.example.com/.well-known/jwks.json',
 *   issuer: 'latchkey',
 *   audience: 'latchkey',
 * })
 * const { sub, sid } = await verifier.verify(token) // throws VerifyError when refused
 */
export const createVerifier = (options: VerifierOptions): Verifier => {
  const url = jwksUrlOf(options?.jwksUrl)
  for (const option of ['issuer', 'audience'] as const)
    if (typeof options[option] !== 'string' || options[option].trim() === '')
      fail(option, 'is required: the value the Latchkey server puts in its tokens (`latchkey` unless configured)')
  const clockTolerance = seconds('clockTolerance', options.clockTolerance, 0)
  const remote = createRemoteJWKSet(url, {
    cacheMaxAge: seconds('cacheMaxAge', options.cacheMaxAge, 300) * 1000,
    cooldownDuration: seconds('cooldown', options.cooldown, 30) * 1000,
    timeoutDuration: Math.round(seconds('timeout', options.timeout, 5) * 1000),
  })
  /** The keys of the last key set fetched, kept while later fetches fail. */
  let held: ReturnType<typeof createLocalJWKSet> | undefined
  let fetching: Promise<void> | undefined
  let unavailableUntil = 0
  const mayFetch = () => Date.now() >= unavailableUntil

  /** One fetch at a time; a failure holds off the next fetch for FAILURE_BACKOFF_MS and keeps the keys held. */
  const fetchKeys = (): Promise<void> =>
    (fetching ??= remote
      .reload()
      .then(
        () => {
          const jwks = remote.jwks()
          if (jwks) held = createLocalJWKSet(jwks)
        },
        (err: unknown) => {
          unavailableUntil = Date.now() + FAILURE_BACKOFF_MS
          throw new VerifyError('jwks_unavailable', `the key set at ${url.href} could not be fetched or read`, { cause: err })
        },
      )
      .finally(() => {
        fetching = undefined
      }))

  const keyFor: JWTVerifyGetKey = async (header, token) => {
    if (held) {
      try {
        const key = await held(header, token)
        // Older than cacheMaxAge: answer from the keys held, fetch anew behind the answer.
        if (!remote.fresh && mayFetch()) fetchKeys().catch(() => {})
        return key
      } catch (err) {
        // Several keys match, or the kid is unknown within the cooldown after a fetch: the token's fault.
        if (!(err instanceof errors.JWKSNoMatchingKey) || remote.coolingDown) throw err
      }
    }
    if (!mayFetch()) throw new VerifyError('jwks_unavailable', 'the key set could not be fetched; trying again shortly')
    await fetchKeys()
    if (!held) throw new VerifyError('jwks_unavailable', `the key set at ${url.href} could not be read`)
    return held(header, token)
  }

  return {
    async verify(token) {
      try {
        if (typeof token !== 'string') throw new VerifyError('malformed', 'the token is not a string')
        const { kid, alg } = decodeProtectedHeader(token)
        if (typeof alg !== 'string' || !ALGORITHMS.includes(alg))
          throw new VerifyError('algorithm_not_allowed', 'the token is not signed with EdDSA or ES256')
        // Every Latchkey token names its key; without one jose would try any key of the algorithm.
        if (typeof kid !== 'string' || kid === '') throw new VerifyError('malformed', 'the token has no `kid`')
        const { payload } = await jwtVerify(token, keyFor, {
          algorithms: ALGORITHMS,
          issuer: options.issuer,
          audience: options.audience,
          clockTolerance,
          requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
        })
        return accessClaims(payload)
      } catch (err) {
        throw refusal(err)
      }
    },
  }
}
