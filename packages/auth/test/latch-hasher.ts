/**
 * A hasher whose `verify` can be held at a latch, so a test can land a reset or a password
 * change exactly while a login (or a change) is between reading the hash and using it.
 */
import type { PasswordHasher } from '../src/password.js'
import { fastHasher } from '../src/testing/index.js'

export const latchHasher = () => {
  const inner = fastHasher()
  let held: { entered: () => void; release: Promise<void> } | null = null
  const legacy = new Set<string>()
  const hasher: PasswordHasher = {
    hash: (password) => inner.hash(password),
    async verify(stored, password) {
      const result = await inner.verify(stored, password)
      const latch = held
      if (latch) {
        held = null
        latch.entered()
        await latch.release
      }
      return result
    },
    needsRehash: (stored) => legacy.has(stored),
  }
  return {
    hasher,
    /** Treat this stored hash as made with weaker parameters (the login re-hashes it). */
    markLegacy: (stored: string) => legacy.add(stored),
    /**
     * Holds the next `verify` after it has computed its answer. Resolves `entered` once a verify
     * is held; call `release()` to let it return.
     */
    hold() {
      let release!: () => void
      let entered!: () => void
      const entry = new Promise<void>((resolve) => {
        entered = resolve
      })
      held = { entered, release: new Promise<void>((resolve) => (release = resolve)) }
      return { entered: entry, release: () => release() }
    },
  }
}
