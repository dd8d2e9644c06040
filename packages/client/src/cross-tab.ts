/**
 * Cross-tab mode: the tabs of one origin share one refresh (a Web Lock) and its token (a
 * BroadcastChannel). What the tabs say to each other, the names, how the mode is turned on, and a
 * refresh taken in turn; when to take another tab's token instead is machine.ts's to decide.
 */
import type { User } from './types.js'

/** The part of the Web Locks API the client uses (`navigator.locks`). */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>
  /** Who holds and who waits for which lock (Web Locks' `query()`); without it a refused tab always waits for a peer. */
  query?(): Promise<{ pending?: { name?: string }[] }>
}

/** The settings of cross-tab mode (`crossTab: { … }` turns it on). */
export interface CrossTabOptions {
  /**
   * The channel's name. Default `latchkey-auth`. When set and `lock` is not, it names the lock
   * too, so two clients of one origin with different names stay apart.
   */
  name?: string
  /** The Web Lock's name. Default `latchkey-refresh` (or `name`, when that is set). */
  lock?: string
  /** The lock manager. Default `navigator.locks`; tests (or Node) pass their own. */
  locks?: LockManagerLike
}

/**
 * What the tabs tell each other on the channel: a new token (after a sign-in, a refresh or the
 * two-factor step; `expiresIn` in seconds from when it was sent), or that the session ended.
 * `api` is the sender's `<baseUrl><authPath>`: a client ignores the messages of another API's.
 */
export type CrossTabMessage =
  | { type: 'token'; accessToken: string; expiresIn: number; user: User | null; api?: string }
  | { type: 'signed-out'; api?: string }

/** The default names of the channel and of the lock. */
export const CROSS_TAB_CHANNEL = 'latchkey-auth'
export const CROSS_TAB_LOCK = 'latchkey-refresh'

/** How long the lock stays held after a refresh, so the other tabs read its broadcast before they get the lock. */
export const HANDOVER_MS = 100
/** How long a tab whose refresh lost a race waits for the winner's token before it counts as signed out. */
export const PEER_WAIT_MS = 3000

export type Tabs = NonNullable<ReturnType<typeof tabsOf>>

/** The lock manager and channel of cross-tab mode, or `null` when it is off. */
export const tabsOf = (setting: boolean | CrossTabOptions | undefined) => {
  const g = globalThis as {
    document?: unknown
    navigator?: { locks?: LockManagerLike }
    BroadcastChannel?: typeof BroadcastChannel
  }
  const wanted = setting === undefined ? g.document !== undefined : setting !== false
  const settings = typeof setting === 'object' ? setting : {}
  const locks = settings.locks ?? g.navigator?.locks
  if (!wanted || !locks || !g.BroadcastChannel) return null
  return {
    locks,
    channel: new g.BroadcastChannel(settings.name ?? CROSS_TAB_CHANNEL),
    lock: settings.lock ?? settings.name ?? CROSS_TAB_LOCK,
  }
}

/** While holding the lock: whether no other tab waits for it (unknown, without `query()`: `false`). */
const aloneInLine = async (tabs: Tabs) => {
  if (!tabs.locks.query) return false
  const { pending = [] } = await tabs.locks.query().catch(() => ({ pending: [{ name: tabs.lock }] }))
  return !pending.some((request) => request.name === tabs.lock)
}

/**
 * One tab at a time refreshes. Once this tab holds the lock, `turn` says whether to send the
 * refresh (`ask`) or not: another tab's token came meanwhile (`peer`), or its sign-out
 * (`refused`). The lock stays held a moment after a refresh so the others read its broadcast
 * before they get the lock; the caller has its answer at once.
 */
export const refreshInTurn = (
  tabs: Tabs,
  turn: () => 'peer' | 'refused' | 'ask',
  refresh: () => Promise<'ok' | 'refused'>,
): Promise<'ok' | 'refused' | 'refused-alone' | 'peer'> =>
  new Promise((resolve, reject) => {
    tabs.locks
      .request(tabs.lock, async () => {
        const decided = turn()
        if (decided !== 'ask') return resolve(decided)
        const outcome = await refresh()
        if (outcome === 'refused' && (await aloneInLine(tabs))) return resolve('refused-alone')
        resolve(outcome)
        if (outcome === 'ok') await new Promise((done) => setTimeout(done, HANDOVER_MS))
      })
      .catch(reject)
  })
