/**
 * TOTP (RFC 6238): HOTP (RFC 4226) over 30-second time steps, HMAC-SHA-1, 6 digits, the
 * parameters every authenticator app takes from an `otpauth://` URI. The HOTP arithmetic is
 * `@oslojs/otp`'s; the clock and the replay guard are ours: a code is matched to its time step,
 * so the store can refuse a step that was already used.
 */

import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from '@oslojs/encoding'
import { createTOTPKeyURI, verifyHOTP } from '@oslojs/otp'

export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6
/** Steps accepted either side of the current one: a clock ±30 s off still works (RFC 6238 §5.2). */
export const TOTP_SKEW_STEPS = 1
/** 160 bits, the HMAC-SHA-1 block of RFC 4226 §4 (R6). */
const SECRET_BYTES = 20

/** The time step (RFC 6238 `T`) at `now`. */
export const timeStep = (now: Date): number => Math.floor(now.getTime() / (TOTP_PERIOD_SECONDS * 1000))

/** A new random TOTP key. */
export const newTotpKey = (): Uint8Array => crypto.getRandomValues(new Uint8Array(SECRET_BYTES))

/** The key as authenticator apps take it: base32 without padding (RFC 4648). */
export const base32Key = (key: Uint8Array): string => encodeBase32UpperCaseNoPadding(key)

export const keyFromBase32 = (text: string): Uint8Array => decodeBase32IgnorePadding(text)

/**
 * The time step among now−1, now and now+1 whose code is `code`, or `null`. Every candidate is
 * compared in constant time, and all three are computed whichever matches.
 */
export const matchingStep = (key: Uint8Array, code: string, now: Date): number | null => {
  const current = timeStep(now)
  let found: number | null = null
  // No step before the epoch: a counter is unsigned.
  for (let step = Math.max(0, current - TOTP_SKEW_STEPS); step <= current + TOTP_SKEW_STEPS; step++)
    if (verifyHOTP(key, BigInt(step), TOTP_DIGITS, code) && found === null) found = step
  return found
}

/** The `otpauth://totp/…` URI of a key, for a QR code (issuer and account name are shown by the app). */
export const totpUri = (issuer: string, accountName: string, key: Uint8Array): string =>
  createTOTPKeyURI(issuer, accountName, key, TOTP_PERIOD_SECONDS, TOTP_DIGITS)
