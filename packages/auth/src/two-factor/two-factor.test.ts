/**
 * The second factor's parts on their own: TOTP against RFC 6238's test vectors and an
 * independent implementation (`otpauth`), the sealed key (AES-256-GCM under HKDF of the secret),
 * and recovery codes.
 */
import { generateHOTP } from '@oslojs/otp'
import fc from 'fast-check'
import * as OTPAuth from 'otpauth'
import { describe, expect, it } from 'vitest'
import { keyIdOf } from '../access-token.js'
import { secretBox } from '../secret-box.js'
import { canonicalRecoveryCode, newRecoveryCodes, RECOVERY_CODE_COUNT, recoveryCodeHash } from './recovery-codes.js'
import { base32Key, keyFromBase32, matchingStep, newTotpKey, timeStep, totpUri } from './totp.js'

const A = 'first-secret-that-is-long-enough-0123456789'
const B = 'second-secret-that-is-long-enough-9876543210'

describe('TOTP', () => {
  // RFC 6238 Appendix B, the SHA-1 column: key "12345678901234567890", 8 digits, 30-second steps.
  const RFC_KEY = new TextEncoder().encode('12345678901234567890')
  const VECTORS: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ]

  it.each(VECTORS)('matches RFC 6238 appendix B at T=%i', (seconds, code) => {
    const step = timeStep(new Date(seconds * 1000))
    expect(generateHOTP(RFC_KEY, BigInt(step), 8)).toBe(code)
    // The 6-digit code is the same number mod 10^6, and matchingStep finds its step.
    expect(matchingStep(RFC_KEY, code.slice(2), new Date(seconds * 1000))).toBe(step)
  })

  const independent = (key: Uint8Array, at: number) =>
    new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(base32Key(key)), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
      timestamp: at,
    })

  it('accepts the codes of an independent implementation at −1, 0 and +1 steps, and not at ±2', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.integer({ min: 60_000, max: 4_000_000_000_000 }),
        (key, at) => {
          const now = new Date(at)
          const step = timeStep(now)
          for (const offset of [-1, 0, 1])
            expect(matchingStep(key, independent(key, at + offset * 30_000), now)).toBe(step + offset)
          for (const offset of [-2, 2]) {
            const code = independent(key, at + offset * 30_000)
            // A code of ±2 steps matches only by chance, when it equals a nearby step's code.
            const nearby = [-1, 0, 1].map((o) => independent(key, at + o * 30_000))
            if (!nearby.includes(code)) expect(matchingStep(key, code, now)).toBeNull()
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('makes 160-bit keys whose base32 round-trips, and an otpauth URI apps read', () => {
    const key = newTotpKey()
    expect(key).toHaveLength(20)
    expect(base32Key(key)).toMatch(/^[A-Z2-7]{32}$/)
    expect(keyFromBase32(base32Key(key))).toEqual(key)
    const uri = totpUri('Latchkey', 'ada@example.com', key)
    const parsed = OTPAuth.URI.parse(uri)
    expect(parsed).toBeInstanceOf(OTPAuth.TOTP)
    expect(parsed).toMatchObject({ issuer: 'Latchkey', label: 'ada@example.com', algorithm: 'SHA1', digits: 6, period: 30 })
    expect(parsed.secret.base32).toBe(base32Key(key))
  })

  it('works at the epoch (no negative step)', () => {
    const key = newTotpKey()
    expect(matchingStep(key, independent(key, 0), new Date(0))).toBe(0)
  })

  it('refuses codes of the wrong length or with non-digits', () => {
    const key = newTotpKey()
    const now = new Date()
    const code = independent(key, now.getTime())
    for (const bad of [code.slice(1), `${code}0`, ` ${code}`, '', 'abcdef']) expect(matchingStep(key, bad, now)).toBeNull()
  })
})

describe('the sealed TOTP key', () => {
  const key = new Uint8Array(Array.from({ length: 20 }, (_, i) => i))

  it('opens for the user it was sealed for, and holds neither the key nor its base32', async () => {
    const box = secretBox(null, [A])
    const sealed = await box.seal(key, 'user-1')
    expect(sealed).toMatch(new RegExp(`^v1\\.${keyIdOf(A)}\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+$`))
    expect(sealed).not.toContain(base32Key(key))
    expect(sealed).not.toContain(Buffer.from(key).toString('base64url'))
    expect(await box.open(sealed, 'user-1')).toEqual({ plain: key, stale: false })
    // A fresh IV each time.
    expect(await box.seal(key, 'user-1')).not.toBe(sealed)
  })

  it('does not open for another user, altered, truncated, or without the secret', async () => {
    const sealed = await secretBox(null, [A]).seal(key, 'user-1')
    expect(await secretBox(null, [A]).open(sealed, 'user-2')).toBeNull()
    expect(await secretBox(null, [B]).open(sealed, 'user-1')).toBeNull()
    const [v, kid, iv, data] = sealed.split('.') as [string, string, string, string]
    const flipped = data.slice(0, 5) + (data[5] === 'A' ? 'B' : 'A') + data.slice(6)
    for (const bad of [
      [v, kid, iv, flipped].join('.'),
      [v, kid, iv, data.slice(0, -4)].join('.'),
      [v, kid, iv].join('.'),
      [v, kid, iv, data, 'x'].join('.'),
      ['v2', kid, iv, data].join('.'),
      [v, kid, '!!!', data].join('.'),
      [v, kid, 'A', data].join('.'),
      '',
    ])
      expect(await secretBox(null, [A]).open(bad, 'user-1')).toBeNull()
  })

  it('opens under a rotated list (the old secret second) and says it is stale, so it is sealed again', async () => {
    const sealed = await secretBox(null, [A]).seal(key, 'user-1')
    const rotated = secretBox(null, [B, A])
    expect(await rotated.open(sealed, 'user-1')).toEqual({ plain: key, stale: true })
    const resealed = await rotated.seal(key, 'user-1')
    expect(resealed.split('.')[1]).toBe(keyIdOf(B))
    expect(await secretBox(null, [B]).open(resealed, 'user-1')).toEqual({ plain: key, stale: false })
  })
})

describe('sealed under the encryption keys', () => {
  const key = new Uint8Array(Array.from({ length: 20 }, (_, i) => 20 - i))
  const [E1, E2] = ['encryption-key-one-0123456789abcdefghijkl', 'encryption-key-two-ZYXWVUTSRQPONMLKJIHGFE']

  it('seals under the first encryption key, never a signing secret, and opens without any signing secret', async () => {
    const sealed = await secretBox([E1], [A]).seal(key, 'user-1')
    expect(sealed.startsWith('v2.')).toBe(true)
    expect(sealed.split('.')[1]).not.toBe(keyIdOf(A))
    expect(sealed.startsWith(secretBox([E1], [B]).sealingPrefix)).toBe(true)
    // The signing secret changed completely: the sealed key still opens, and is not stale.
    expect(await secretBox([E1], [B]).open(sealed, 'user-1')).toEqual({ plain: key, stale: false })
    expect(await secretBox([E2], [A]).open(sealed, 'user-1')).toBeNull()
  })

  it('opens under a rotated list of encryption keys, stale until sealed again under the first', async () => {
    const sealed = await secretBox([E1], [A]).seal(key, 'user-1')
    const rotated = secretBox([E2, E1], [A])
    expect(await rotated.open(sealed, 'user-1')).toEqual({ plain: key, stale: true })
    expect(sealed.startsWith(rotated.sealingPrefix)).toBe(false)
    const resealed = await rotated.seal(key, 'user-1')
    expect(await secretBox([E2], [B]).open(resealed, 'user-1')).toEqual({ plain: key, stale: false })
  })

  it('opens what an earlier version sealed under a signing secret, as stale', async () => {
    const old = await secretBox(null, [A]).seal(key, 'user-1')
    expect(old.startsWith(`v1.${keyIdOf(A)}.`)).toBe(true)
    const box = secretBox([E1], [A])
    expect(await box.open(old, 'user-1')).toEqual({ plain: key, stale: true })
    // Without the signing secret that sealed it, it does not open.
    expect(await secretBox([E1], [B]).open(old, 'user-1')).toBeNull()
  })
})

describe('recovery codes', () => {
  it('are ten distinct codes of 12 Crockford base32 characters (60 bits each)', () => {
    const codes = newRecoveryCodes()
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT)
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT)
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/)
    // 32 symbols, 12 of them: 60 bits, over the 50 a recovery code needs at least.
    expect(12 * Math.log2(32)).toBeGreaterThanOrEqual(50)
  })

  it('use every character of the alphabet about equally', () => {
    const counts = new Map<string, number>()
    for (let i = 0; i < 400; i++)
      for (const ch of newRecoveryCodes().join('').replaceAll('-', '')) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(32)
    // 48,000 characters, 1,500 expected each; a biased generator is far outside ±25 %.
    for (const n of counts.values()) expect(Math.abs(n - 1500)).toBeLessThan(375)
  })

  it('are read in any case, with or without hyphens and spaces, with look-alikes mapped', () => {
    expect(canonicalRecoveryCode('ABCD-EFGH-JKMN')).toBe('abcdefghjkmn')
    expect(canonicalRecoveryCode('abcd efgh jkmn')).toBe('abcdefghjkmn')
    expect(canonicalRecoveryCode('o1il-0000-0000')).toBe('0111-0000-0000'.replaceAll('-', ''))
    for (const bad of ['abcd-efgh-jkm', 'abcd-efgh-jkmnp', 'abcd-efgh-jkmu', '']) expect(canonicalRecoveryCode(bad)).toBeNull()
  })

  it('are stored as a hash bound to the user', () => {
    const hash = recoveryCodeHash('user-1', 'abcdefghjkmn')
    expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(hash).not.toBe(recoveryCodeHash('user-2', 'abcdefghjkmn'))
  })
})
