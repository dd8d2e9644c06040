/**
 * The sweep that keeps the store's tables proportional to live data (docs/reference/operations.md#the-sweep): dead
 * sessions, spent reset and email tokens, dead login and WebAuthn challenges and social sign-in
 * flows, expired add-credential codes, devices not seen for a year and API keys expired for 30 days
 * are deleted in bounded batches, on a timer the server owns (unref'd, so it never keeps a process
 * alive) and stops on shutdown. The session core says what is dead; the store deletes it. The same run seals
 * again under the first encryption key whatever another key sealed (TOTP secrets, providers'
 * kept tokens), page by page, so an old key can be dropped once none is left.
 */
import { EXPIRED_KEY_GRACE_MS } from './api-keys/core.js'
import { DEVICE_MEMORY_MS } from './device.js'
import { errorSummary } from './errors.js'
import type { SecretBox } from './secret-box.js'
import { deadSessionCutoffs, type SessionLifetimes } from './session-lifetimes.js'
import type { Store, UserRecord } from './store/types.js'

export interface PruneCounts {
  sessions: number
  resetTokens: number
  emailTokens: number
  challenges: number
  addCredentialCodes: number
  /** Used or expired sign-in mails (docs/reference/email-sign-in.md). */
  emailSignIns: number
  devices: number
  /** API keys expired longer ago than the grace (docs/guide/api-keys.md#expiry); a revoked key's row goes at once. */
  apiKeys: number
  /** Used or expired social sign-in flows (docs/guide/social-sign-in.md). */
  oauthFlows: number
  /** Used or expired WebAuthn challenges of passkey ceremonies (docs/reference/passkeys.md). */
  passkeyChallenges: number
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
    const total: PruneCounts = {
      sessions: 0,
      resetTokens: 0,
      emailTokens: 0,
      challenges: 0,
      addCredentialCodes: 0,
      emailSignIns: 0,
      devices: 0,
      apiKeys: 0,
      oauthFlows: 0,
      passkeyChallenges: 0,
      resealed: 0,
    }
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const now = deps.now()
      const deleted = await deps.store.prune({
        ...deadSessionCutoffs(now, deps.lifetimes),
        now,
        forgetDevicesSeenBy: new Date(now.getTime() - DEVICE_MEMORY_MS),
        forgetApiKeysExpiredBy: new Date(now.getTime() - EXPIRED_KEY_GRACE_MS),
        limit: deps.batchSize,
      })
      for (const [kind, count] of Object.entries(deleted) as [keyof typeof deleted, number][]) total[kind] += count
      const signIns = await deps.store.pruneEmailSignIns(now, deps.batchSize)
      total.emailSignIns += signIns
      if (Math.max(...Object.values(deleted), signIns) < deps.batchSize) break
      // Requests go first between batches.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    total.resealed = await resealAll()
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
