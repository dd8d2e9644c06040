/**
 * What an API key looks like (docs/guide/api-keys.md#the-format): `lk_`, 40 base62 characters
 * drawn from the CSPRNG (238 bits), and a 6-character base62 CRC-32 of everything before it. The
 * fixed prefix lets secret scanners (GitHub's, gitleaks) recognise a leaked key; the checksum lets
 * them, and the guard, refuse a mistyped or made-up key without a database lookup. The checksum
 * is no secret and protects nothing: the 238 random bits do.
 */
import { tokenHash } from '../opaque-token.js'
import { randomBytes } from '../web.js'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const KEY_PREFIX = 'lk_'
const RANDOM_CHARS = 40
const CHECKSUM_CHARS = 6
/** Length of every key: `lk_`, the random part, the checksum. */
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS
/** How much of a key its list shows (`prefix`): enough to tell keys apart, far too little to use. */
export const SHOWN_CHARS = 12
const SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`)

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (IEEE 802.3, as zlib computes it) of ASCII text. */
export const crc32 = (text: string): number => {
  let crc = 0xffffffff
  for (let i = 0; i < text.length; i++) crc = (CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

/** `n` in base62, left-padded with `0` to `width` characters (62^6 > 2^32, so a CRC-32 always fits in 6). */
const base62 = (n: number, width: number): string => {
  let out = ''
  for (let rest = n; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out
  return out.padStart(width, '0')
}

const checksumOf = (body: string) => base62(crc32(body), CHECKSUM_CHARS)

/** `n` base62 characters, each uniform: bytes of 248 and more are drawn again (248 = 4 × 62). */
const randomBase62 = (n: number): string => {
  let out = ''
  while (out.length < n) {
    for (const byte of randomBytes(n)) {
      if (byte < 248 && out.length < n) out += BASE62[byte % 62]
    }
  }
  return out
}

/** A new API key, as shown to its owner once. */
export const newApiKey = (): string => {
  const body = KEY_PREFIX + randomBase62(RANDOM_CHARS)
  return body + checksumOf(body)
}

/**
 * Whether `text` has the shape of an API key and its checksum holds: `false` for anything else
 * (a JWT, a typo, a 10,000-character value), without touching the store.
 */
export const isWellFormedKey = (text: string): boolean => {
  if (text.length !== KEY_LENGTH || !SHAPE.test(text)) return false
  const body = text.slice(0, KEY_LENGTH - CHECKSUM_CHARS)
  return checksumOf(body) === text.slice(KEY_LENGTH - CHECKSUM_CHARS)
}

/** Whether a bearer value is meant as an API key (the guard then never reads it as an access token). */
export const looksLikeApiKey = (text: string): boolean => text.startsWith(KEY_PREFIX)

/** The part of a key its list shows. */
export const shownPrefix = (key: string): string => key.slice(0, SHOWN_CHARS)

/**
 * A new key and what a store keeps of it (its SHA-256 hex and its shown prefix), for tools that
 * write keys straight into a database: the bench, fixtures.
 */
export const seededApiKey = () => {
  const key = newApiKey()
  return { key, hash: tokenHash(key), prefix: shownPrefix(key) }
}
