/** The key format (docs/guide/api-keys.md#the-format): shape, checksum, and what the checksum catches. */
import { crc32 as zlibCrc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { crc32, isWellFormedKey, KEY_LENGTH, looksLikeApiKey, newApiKey, seededApiKey, shownPrefix } from './key-format.js'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

describe('API key format', () => {
  it('is lk_ + 46 base62 characters, each key new, its checksum holding', () => {
    const keys = Array.from({ length: 200 }, newApiKey)
    expect(new Set(keys).size).toBe(200)
    for (const key of keys) {
      expect(key).toMatch(/^lk_[0-9A-Za-z]{46}$/)
      expect(key).toHaveLength(KEY_LENGTH)
      expect(isWellFormedKey(key)).toBe(true)
      expect(looksLikeApiKey(key)).toBe(true)
      expect(shownPrefix(key)).toBe(key.slice(0, 12))
    }
  })

  it('computes CRC-32 as zlib does', () => {
    for (const text of ['', 'lk_', 'The quick brown fox', newApiKey()]) expect(crc32(text)).toBe(zlibCrc32(text))
  })

  it('refuses every one-character typo of a key, and what is not a key at all', () => {
    const key = newApiKey()
    for (let i = 3; i < key.length; i++) {
      const other = BASE62[(BASE62.indexOf(key[i] as string) + 1 + (i % 61)) % 62] as string
      expect(isWellFormedKey(key.slice(0, i) + other + key.slice(i + 1)), `position ${i}`).toBe(false)
    }
    for (const text of [
      key.slice(0, -1),
      `${key}A`,
      `LK_${key.slice(3)}`,
      `lk_${'A'.repeat(10_000)}`,
      `${key.slice(0, 20)}\u0000${key.slice(21)}`,
      '',
    ])
      expect(isWellFormedKey(text)).toBe(false)
  })

  it('hands a seeding tool the key with what a store keeps of it', () => {
    const { key, hash, prefix } = seededApiKey()
    expect(isWellFormedKey(key)).toBe(true)
    expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(prefix).toBe(key.slice(0, 12))
  })
})
