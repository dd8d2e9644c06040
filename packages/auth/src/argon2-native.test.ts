import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { HASHING_NICE } from './argon2-native.js'
import { ARGON2_FLOOR, argon2Hasher } from './password.js'

const linuxNode = process.platform === 'linux' && existsSync('/proc/thread-self') && !('bun' in process.versions)

/** The nice value of a thread, from its `stat` (the 19th field; the command may hold spaces). */
const niceOf = (statPath: string) => {
  const stat = readFileSync(statPath, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
}
const threadsAtHashingNice = () =>
  readdirSync('/proc/self/task').filter((tid) => niceOf(`/proc/self/task/${tid}/stat`) === HASHING_NICE)

const slots = Math.max(1, availableParallelism() - 1)

describe.runIf(linuxNode)('argon2id on Linux under Node: threads of its own at a lower priority', () => {
  const hasher = argon2Hasher(ARGON2_FLOOR)

  it('hashes and verifies on threads at nice 10, and leaves the calling thread as it was', async () => {
    const mine = niceOf('/proc/thread-self/stat')
    const hash = await hasher.hash('correct horse battery staple')
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true)
    expect(await hasher.verify(hash, 'correct horse battery stapler')).toBe(false)
    expect(threadsAtHashingNice().length).toBeGreaterThanOrEqual(1)
    expect(niceOf('/proc/thread-self/stat')).toBe(mine)
  })

  it('answers each of many hashes asked at once rightly, on no more threads than its slots', async () => {
    const hash = await hasher.hash('right')
    const passwords = Array.from({ length: 3 * slots + 2 }, (_, i) => (i % 2 ? 'right' : `wrong ${i}`))
    expect(await Promise.all(passwords.map((p) => hasher.verify(hash, p)))).toEqual(passwords.map((p) => p === 'right'))
    expect(threadsAtHashingNice().length).toBeLessThanOrEqual(slots)
  })

  it('answers false for a malformed hash, and its thread goes on hashing', async () => {
    for (const stored of ['not a hash', '$argon2id$v=19$m=19456,t=2,p=1$AAAA$', ''])
      expect(await hasher.verify(stored, 'x')).toBe(false)
    const hash = await hasher.hash('still works')
    expect(await hasher.verify(hash, 'still works')).toBe(true)
    expect(threadsAtHashingNice().length).toBeLessThanOrEqual(slots)
  })

  it('keeps a process that waits only for a hash alive until the hash is done, and lets it exit after', async () => {
    const password = fileURLToPath(new URL('./password.ts', import.meta.url))
    const script = [
      `const { argon2Hasher, ARGON2_FLOOR } = await import(${JSON.stringify(password)})`,
      `const hash = await argon2Hasher(ARGON2_FLOOR).hash('waited for')`,
      `console.log(hash.startsWith('$argon2id$') ? 'hashed' : 'wrong')`,
    ].join('\n')
    const run = promisify(execFile)
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 })
    expect(stdout.trim()).toBe('hashed')
  })
})
