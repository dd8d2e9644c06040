/** What every part of the conformance suite shares: the store under test and ways to fill it. */
import { type RotateRefreshInput, rotateRefresh } from '../../refresh-rotation.js'
import type { Store, UserRecord } from '../../store/types.js'

export const T0 = new Date('2026-11-21T10:00:00.000Z')
export const at = (ms: number) => new Date(T0.getTime() + ms)
export const DAY = 86_400_000
const lifetimes = { graceMs: 10_000, idleMs: 30 * DAY, absoluteMs: 90 * DAY }
/** The session key hash {@link Conformance.newSession} gives a session, and {@link Conformance.rotate} presents. */
export const SESSION_KEY = 'session-key-hash'

export interface Conformance {
  /** The fresh store of the running test. */
  readonly store: Store<UserRecord>
  newUser(email?: string): Promise<UserRecord>
  /** A session of the user whose key hash is `keyHash` (default {@link SESSION_KEY}; `null`: a session from before keys). */
  newSession(userId: string, refreshHash?: string, now?: Date, keyHash?: string | null): Promise<string>
  /**
   * The session core's rotation over the store, at `ms` after T0, as the refresh route runs it;
   * the value carries {@link SESSION_KEY} unless `more` says otherwise.
   */
  rotate(
    sessionId: string | null,
    hash: string,
    nextHash: string,
    ms: number,
    more?: Partial<RotateRefreshInput>,
  ): ReturnType<typeof rotateRefresh<UserRecord>>
}

export const conformance = (current: () => Store<UserRecord>): Conformance => ({
  get store() {
    return current()
  },
  async newUser(email = `u-${crypto.randomUUID()}@example.com`) {
    const user = await current().createUser({
      id: crypto.randomUUID(),
      name: 'Ada',
      email,
      passwordHash: 'hash-1',
      createdAt: T0,
    })
    if (!user) throw new Error('createUser refused a fresh email')
    return user
  },
  async newSession(userId, refreshHash = crypto.randomUUID(), now = T0, refreshKeyHash: string | null = SESSION_KEY) {
    const id = crypto.randomUUID()
    if (!(await current().createSession({ id, userId, refreshHash, refreshKeyHash, now, credentialsVersion: 0 })))
      throw new Error('createSession refused a fresh user')
    return id
  },
  rotate: (sessionId, hash, nextHash, ms, more = {}) =>
    rotateRefresh(current(), {
      sessionId,
      hash,
      keyHash: SESSION_KEY,
      // A value the session issued (it carries the server's mark), unless `more` says otherwise.
      issued: true,
      nextHash,
      nextKeyHash: SESSION_KEY,
      now: at(ms),
      ...lifetimes,
      ...more,
    }),
})
