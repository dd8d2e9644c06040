import { describe, expect, it } from 'vitest'
import { argon2Hasher, commonPasswords, passwordWeakness } from './password.js'

describe('argon2Hasher', () => {
  const hasher = argon2Hasher({ memoryCost: 19456, timeCost: 2, parallelism: 1 })

  it('hashes with argon2id at the configured parameters and verifies', async () => {
    const hash = await hasher.hash('correct horse battery staple')
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true)
    expect(await hasher.verify(hash, 'Correct horse battery staple')).toBe(false)
    expect(await hasher.verify('not a hash', 'x')).toBe(false)
    expect(hasher.needsRehash(hash)).toBe(false)
  })

  it('asks for a re-hash when a stored hash is weaker in any parameter or not argon2id', () => {
    const salt = 'c29tZXNhbHQ$aGFzaA'
    expect(hasher.needsRehash(`$argon2id$v=19$m=8192,t=2,p=1$${salt}`)).toBe(true)
    expect(hasher.needsRehash(`$argon2id$v=19$m=19456,t=1,p=1$${salt}`)).toBe(true)
    expect(hasher.needsRehash(`$argon2i$v=19$m=19456,t=2,p=1$${salt}`)).toBe(true)
    expect(hasher.needsRehash(`$argon2id$v=19$m=65536,t=3,p=4$${salt}`)).toBe(false)
  })
})

describe('password rules', () => {
  it('knows at least the 10,000 most common passwords', async () => {
    const list = await commonPasswords()
    expect(list.size).toBeGreaterThanOrEqual(10_000)
    for (const p of ['123456', 'password', 'qwerty', 'iloveyou', 'trustno1']) expect(list.has(p)).toBe(true)
  })

  it('refuses common passwords and the email or its local part, case-insensitively', async () => {
    expect(await passwordWeakness('Password', 'ada@example.com')).toMatch(/common/)
    expect(await passwordWeakness('ADA@EXAMPLE.COM', 'ada@example.com')).toMatch(/email/)
    expect(await passwordWeakness('Ada', 'ada@example.com')).toMatch(/email/)
    expect(await passwordWeakness('a long unusual passphrase', 'ada@example.com')).toBeNull()
  })
})
