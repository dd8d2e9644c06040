/**
 * `@latchkey/verify`: access tokens of a Latchkey server, verified by another service from the
 * server's public keys. `createVerifier` and its typed claims and error; the Hono middleware is
 * at `@latchkey/verify/hono`.
 */
export { VerifyError, type VerifyErrorCode } from './errors.js'
export { type AccessClaims, createVerifier, type Verifier, type VerifierOptions } from './verifier.js'
