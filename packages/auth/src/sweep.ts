/**
 * The sweep that keeps the store's tables proportional to live data (docs/reference/operations.md#the-sweep): dead
 * sessions, spent reset and email tokens, dead login challenges and expired add-credential codes are deleted in bounded batches, on a timer the server owns
 * (unref'd, so it never keeps a process alive) and stops on shutdown. The session core says
 * what is dead; the store deletes it.
 */
import { errorSummary } from './errors.js'
import { deadSessionCutoffs, type SessionLifetimes } from './session.js'
import type { Store, UserRecord } from './store/types.js'

export interface PruneCounts {
  sessions: number
  resetTokens: number
  emailTokens: number
  challenges: number
  addCredentialCodes: number
}

export interface Sweep {
  /** Deletes every dead row now, batch by batch; a run already under way is joined, not doubled. */
  run(): Promise<PruneCounts>
  /** Stops the timer and waits for a run under way. */
  stop(): Promise<void>
}

/** Batches of one run at most: a table that grows faster than this is left to the next run. */
const MAX_BATCHES = 200

export const sweeper = <U extends UserRecord>(deps: {
  store: Store<U>
  lifetimes: SessionLifetimes
  now: () => Date
  log: (message: string) => void
  /** 0: no timer; call `run()` yourself. */
  intervalMs: number
  batchSize: number
}): Sweep => {
  let running: Promise<PruneCounts> | null = null
  const sweepAll = async (): Promise<PruneCounts> => {
    const total: PruneCounts = { sessions: 0, resetTokens: 0, emailTokens: 0, challenges: 0, addCredentialCodes: 0 }
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const now = deps.now()
      const deleted = await deps.store.prune({ ...deadSessionCutoffs(now, deps.lifetimes), now, limit: deps.batchSize })
      total.sessions += deleted.sessions
      total.resetTokens += deleted.resetTokens
      total.emailTokens += deleted.emailTokens
      total.challenges += deleted.challenges
      total.addCredentialCodes += deleted.addCredentialCodes
      if (Math.max(...Object.values(deleted)) < deps.batchSize) break
      // Requests go first between batches.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    return total
  }
  const run = () => {
    running ??= sweepAll().finally(() => {
      running = null
    })
    return running
  }
  const timer =
    deps.intervalMs > 0
      ? setInterval(() => {
          run().catch((err: unknown) => deps.log(`prune: the sweep failed: ${errorSummary(err)}`))
        }, deps.intervalMs)
      : undefined
  // Node, Bun and Deno can let the process exit past it; Workers' timers have no `unref`.
  ;(timer as { unref?: () => void } | undefined)?.unref?.()
  return {
    run,
    async stop() {
      if (timer) clearInterval(timer)
      await running?.catch(() => undefined)
    },
  }
}
