/**
 * The one error `verify()` throws, with a stable string `code` to branch on. Its `message` is
 * for logs and never holds the token.
 */

/** Why a token was refused; stable across versions. */
export type VerifyErrorCode =
  /** No bearer token in the request (middleware only). */
  | 'missing_token'
  /** Not a compact JWS, or its header has no string `kid`. */
  | 'malformed'
  /** `alg` is not EdDSA or ES256 (`none`, HS256, …): never tried. */
  | 'algorithm_not_allowed'
  /** No published key has the token's `kid`, even after fetching the key set again. */
  | 'unknown_key'
  /** The signature does not match the key its `kid` names (a tampered or forged token). */
  | 'invalid_signature'
  /** `exp` has passed. */
  | 'expired'
  /** Wrong `iss` or `aud`, `nbf` in the future, or a claim missing or of the wrong type. */
  | 'invalid_claims'
  /** The key set could not be fetched or read; the token may be fine. Try again shortly. */
  | 'jwks_unavailable'

/**
 * A refused token. `code` says why; `status` is what an HTTP service answers (401, or 503 when
 * the key set is unavailable).
 *
 * @example
 * try { await verifier.verify(token) } catch (err) {
 *   if (err instanceof VerifyError && err.code === 'expired') return refresh()
 *   throw err
 * }
 */
export class VerifyError extends Error {
  override name = 'VerifyError'
  readonly code: VerifyErrorCode
  constructor(code: VerifyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
  /** 503 when the key set is unavailable (the token may be valid), 401 otherwise. */
  get status(): 401 | 503 {
    return this.code === 'jwks_unavailable' ? 503 : 401
  }
}
