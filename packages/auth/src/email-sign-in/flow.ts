/**
 * What one sign-in mail is made of (docs/reference/email-sign-in.md): a flow for the browser that
 * asked, a link token and a 6-digit code. The store keeps SHA-256 hashes only; the code's hash
 * includes the flow, so a code is worth nothing on another flow and a copy of the database
 * cannot be searched for codes without the flows, which only the browsers hold.
 */
import { opaqueToken, tokenHash } from '../opaque-token.js'
import { sha256Hex } from '../web.js'

/** A sign-in mail lives 15 minutes. */
export const SIGN_IN_TTL_MS = 15 * 60 * 1000
/** Codes tried on one flow at most: the fifth wrong one kills the mail's link and code. */
export const SIGN_IN_MAX_ATTEMPTS = 5

/** A uniformly random 6-digit code (rejection sampling: no digit is likelier than another). */
export const sixDigitCode = (): string => {
  const bound = 4_294_000_000 // the largest multiple of 10^6 below 2^32
  const word = new Uint32Array(1)
  for (;;) {
    crypto.getRandomValues(word)
    const n = word[0] as number
    if (n < bound) return String(n % 1_000_000).padStart(6, '0')
  }
}

/** The stored hash of `code` on `flow`. */
export const codeHash = (flow: string, code: string): string => sha256Hex(`${flow}:${code}`)

/** A new sign-in: the values for the answer and the mail, and the hashes for the store. */
export const newSignIn = () => {
  const flow = opaqueToken()
  const token = opaqueToken()
  const code = sixDigitCode()
  return { flow, token, code, hashes: { flowHash: tokenHash(flow), tokenHash: tokenHash(token), codeHash: codeHash(flow, code) } }
}
