/**
 * Work that runs after an answer has been decided (forgot-password's token and mail), so it
 * cannot change the answer's status, body or timing; and a way to wait for it on shutdown.
 */
import { errorSummary } from './errors.js'

export interface AfterAnswer {
  /** Runs `task` a timer turn later. A failure is logged by name only. */
  run(what: string, task: () => Promise<void>): void
  /** Resolves once every task started so far, and every task they started, has finished. */
  settled(): Promise<void>
}

export const afterAnswer = (log: (message: string) => void): AfterAnswer => {
  const pending = new Set<Promise<void>>()
  return {
    run(what, task) {
      const running: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 0))
        .then(task)
        .catch((err: unknown) => log(`${what}: work after the answer failed: ${errorSummary(err)}`))
        .finally(() => pending.delete(running))
      pending.add(running)
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled(pending)
    },
  }
}
