/**
 * The sweep that keeps the store's tables proportional to live data (docs/reference/operations.md#the-sweep): dead
 * sessions, spent reset and email tokens, expired add-credential codes and devices not seen for a
 * year, then each feature's dead rows (its facet's `sweep`: login and WebAuthn challenges, sign-in
 * mails, social sign-in flows, API keys expired for 30 days), are deleted in bounded batches, on a
 * timer the server owns (unref'd, so it never keeps a process alive) and stops on shutdown. The
 * session core says what is dead; the store deletes it. The same run seals
 * again under the first encryption key whatever another key sealed (TOTP secrets, providers'
 * kept tokens), page by page, so an old key can be dropped once none is left.
 */
import { DEVICE_MEMORY_MS } from './device.js'
import { errorSummary } from './errors.js'
import type { FeatureSweepName } from './features.js'
import type { SecretBox } from './secret-box.js'
import { deadSessionCutoffs, type SessionLifetimes } from './session-lifetimes.js'
import type { CorePruneCounts } from './store/prune.js'
import type { Store, UserRecord } from './store/types.js'

/**
 * What one run deleted, by kind: the core's tables, then each feature's (named in its facet's
 * `sweep`: `challenges`, `emailSignIns`, `passkeyChallenges`, `apiKeys`, `oauthFlows`).
 */
export type PruneCounts = CorePruneCounts &
  Record<FeatureSweepName, number> & {
    /** Sealed values (TOTP secrets, providers' kept tokens) sealed again under the first encryption key. */
    resealed: number
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
  box: SecretBox
  /** Each feature's sweep (`features.ts`), with the name of its count. */
  features: readonly { name: FeatureSweepName; batch: (store: Store<U>, now: Date, limit: number) => Promise<number> }[]
}): Sweep => {
  let running: Promise<PruneCounts> | null = null
  /**
   * Seals again, page by page, what another key sealed in one table: `page` answers the rows after
   * a cursor (each with its cursor, its owner and its sealed value), `write` swaps one value while
   * it is unchanged. A value no listed key opens stays as it is (and counted).
   */
  const resealPages = async (
    page: (after: string | null) => Promise<{ cursor: string; userId: string; sealed: string }[]>,
    write: (row: { cursor: string; sealed: string }, to: string) => Promise<boolean>,
  ): Promise<number> => {
    let resealed = 0
    let after: string | null = null
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const rows = await page(after)
      for (const row of rows) {
        const opened = await deps.box.open(row.sealed, row.userId)
        if (opened && (await write(row, await deps.box.seal(opened.plain, row.userId)))) resealed++
      }
      after = rows.at(-1)?.cursor ?? after
      if (rows.length < deps.batchSize) break
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    return resealed
  }
  const resealAll = async (): Promise<number> => {
    const { store, box, batchSize: limit } = deps
    const secrets = await resealPages(
      async (after) =>
        (await store.staleSeals({ sealingPrefix: box.sealingPrefix, afterUserId: after, limit })).map((r) => ({
          cursor: r.userId,
          userId: r.userId,
          sealed: r.secret,
        })),
      (row, to) => store.resealTwoFactor(row.cursor, row.sealed, to),
    )
    const tokens = await resealPages(
      async (after) =>
        (await store.staleTokenSeals({ sealingPrefix: box.sealingPrefix, afterId: after, limit })).map((r) => ({
          cursor: r.id,
          userId: r.userId,
          sealed: r.sealedTokens,
        })),
      (row, to) => store.resealIdentityTokens(row.cursor, row.sealed, to),
    )
    return secrets + tokens
  }
  const sweepAll = async (): Promise<PruneCounts> => {
    const total: Record<string, number> = { resealed: 0 }
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const now = deps.now()
      const deleted: Record<string, number> = {
        ...(await deps.store.prune({
          ...deadSessionCutoffs(now, deps.lifetimes),
          now,
          forgetDevicesSeenBy: new Date(now.getTime() - DEVICE_MEMORY_MS),
          limit: deps.batchSize,
        })),
      }
      for (const feature of deps.features) deleted[feature.name] = await feature.batch(deps.store, now, deps.batchSize)
      for (const [kind, count] of Object.entries(deleted)) total[kind] = (total[kind] ?? 0) + count
      if (Math.max(...Object.values(deleted)) < deps.batchSize) break
      // Requests go first between batches.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    total.resealed = await resealAll()
    return total as PruneCounts
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
