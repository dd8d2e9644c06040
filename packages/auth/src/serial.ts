/**
 * Tasks that must not overlap per key, in one process: each waits for the one before it with the
 * same key, in arrival order. For steps whose store claim is a lock rather than a count (a
 * two-factor challenge is claimed, checked in code, then failed or spent): concurrent attempts on
 * one key take turns instead of finding it claimed, so each is judged and counted. Across
 * instances the store's claim still keeps them apart.
 */
export const serialPerKey = () => {
  const tails = new Map<string, Promise<void>>()
  return async <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const before = tails.get(key)
    let done!: () => void
    const tail = new Promise<void>((resolve) => {
      done = resolve
    })
    tails.set(key, tail)
    try {
      if (before) await before
      return await task()
    } finally {
      done()
      // The last in line leaves nothing behind: at most one entry per key with a task waiting or running.
      if (tails.get(key) === tail) tails.delete(key)
    }
  }
}
