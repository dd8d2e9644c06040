/**
 * The few primitives the core needs beyond Web APIs, on Web APIs and `@noble/hashes` (pure
 * JavaScript, audited): synchronous SHA-256 and HMAC, where Web Crypto has only async ones, and
 * base64url. Node, Bun, Deno and Workers run the same code (docs/reference/operations.md#runtimes).
 */

import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'

const encoder = new TextEncoder()

/** UTF-8 bytes (a lone surrogate becomes U+FFFD, as Node's hashing did). */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** `n` random bytes from the platform's CSPRNG. */
export const randomBytes = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n))

export const base64url = (bytes: Uint8Array): string => encodeBase64urlNoPadding(bytes)

export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8(text)))

export const sha256Base64url = (text: string): string => base64url(sha256(utf8(text)))

export const hmacSha256Base64url = (key: string, text: string): string => base64url(hmac(sha256, utf8(key), utf8(text)))

/**
 * HMAC-SHA-256 under keys derived from the signing secrets by `label` (so a MAC of one use is
 * never one of another), truncated to `length` base64url characters: the first secret signs,
 * every listed one verifies, so the secrets rotate as the access tokens' do.
 */
export const secretsMac = (secrets: readonly string[], label: string, length = 43) => {
  const keys = secrets.map((secret) => hmacSha256Base64url(secret, label))
  const macOf = (key: string, text: string) => hmacSha256Base64url(key, text).slice(0, length)
  return {
    sign: (text: string): string => macOf(keys[0] as string, text),
    verify: (text: string, mac: string): boolean => keys.some((key) => sameText(macOf(key, text), mac)),
  }
}

/** Equal strings, compared in time that does not depend on where they differ. */
const sameText = (a: string, b: string): boolean => {
  const x = utf8(a)
  const y = utf8(b)
  if (x.length !== y.length) return false
  let diff = 0
  for (let i = 0; i < x.length; i++) diff |= (x[i] as number) ^ (y[i] as number)
  return diff === 0
}
