/**
 * Cross-tab mode: the tabs of one origin share one refresh (a Web Lock) and its token (a
 * BroadcastChannel). What the tabs say to each other, the names, and how the mode is turned on;
 * the refresh that uses them is in client.ts.
 */
import type { User } from './client.js'

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
