/**
 * What a presented refresh value means (docs/reference/credentials.md#rotation): the verdict on
 * the session row the store read (rotate, a parallel tab's race, reuse, expiry, a made-up value),
 * and spending it with the store's compare-and-swap. Hashes only: reading the cookie and setting
 * the next one is `session-refresh.ts`'s.
 */
import { isDisabled } from './account-disabled.js'
import { type SessionLifetimes, sessionRemainingMs } from './session-lifetimes.js'
import type { SessionAuthentication, SessionRecord, SessionRefreshState, Store, UserRecord } from './store/types.js'

/**
 * `rotate`: spend the value and make the next one current; `foreign`: a value this session never
 * issued (nothing happens); the others as {@link RotateResult}.
 */
export type RotationVerdict = 'rotate' | 'race' | 'reused' | 'expired' | 'foreign'

/** A presented refresh value as the session core judges it: hashes only. */
export interface PresentedHashes {
  /** SHA-256 of the value. */
  hash: string
  /** SHA-256 of the session key it carries; `null` for a value of the older forms. */
  keyHash: string | null
  /**
   * The value carries the server's mark for its session id and key (`RefreshValues#issued`): the
   * session issued it. A value with the right key but no such mark was made up by its holder.
   */
  issued: boolean
}

/** Whether `presented` carries the session's key (a session from before session keys has none). */
const carriesKey = (state: SessionRefreshState, { keyHash }: Pick<PresentedHashes, 'keyHash'>) =>
  state.refreshKeyHash !== null && keyHash === state.refreshKeyHash

/** Whether `presented` is the session's current value. */
export const isCurrentValue = (state: SessionRefreshState, presented: Omit<PresentedHashes, 'issued'>): boolean =>
  state.refreshHash === presented.hash && (state.refreshKeyHash === null || carriesKey(state, presented))

/** What a presented refresh value means for the session that the store read. */
export const judgeRotation = (
  state: SessionRefreshState,
  presented: PresentedHashes,
  now: Date,
  lifetimes: SessionLifetimes,
): RotationVerdict => {
  const { hash } = presented
  if (isCurrentValue(state, presented)) return sessionRemainingMs(state, now, lifetimes) > 0 ? 'rotate' : 'expired'
  // Two tabs refreshing at once present the same value: the second finds it just replaced.
  if (state.previousRefreshHash === hash && state.rotatedAt && now.getTime() - state.rotatedAt.getTime() < lifetimes.graceMs)
    return 'race'
  // A value this session issued earlier (it carries the session's key and the server's mark, or
  // it is the value the current one replaced): a copy of it is in someone else's hands. Anything
  // else was made up, by someone who knows the session id or even its key, and changes nothing.
  return (carriesKey(state, presented) && presented.issued) || state.previousRefreshHash === hash ? 'reused' : 'foreign'
}

export interface RotateRefreshInput extends SessionLifetimes, PresentedHashes {
  /**
   * The session the presented value names (the refresh cookie is `<session id>.<key>.<value>`), or
   * `null` for a value from before 0.2, which is looked up by its hash and can only be current.
   */
  sessionId: string | null
  /** Hash of the value that replaces it. */
  nextHash: string
  /** Hash of the session key the next value carries (the session's own, or a new one for a session without). */
  nextKeyHash: string
  now: Date
}

/**
 * Outcome of {@link rotateRefresh}. A session keeps only its key's hash, its current value's and
 * the one it replaced (one row per session, however often it refreshes):
 * - `rotated`: the presented value was current; it is now spent and `nextHash` is current.
 * - `race`: the value is the one replaced less than `graceMs` ago (parallel tabs); nothing changed.
 * - `reused`: the value is one the session issued before (presented after the race window): the
 *   whole session has been deleted.
 * - `expired`: the session is past its idle or absolute lifetime: it has been deleted.
 * - `unknown`: no such session, or a value the session never issued (nothing changed).
 */
export type RotateResult<U extends UserRecord = UserRecord> =
  | { status: 'rotated'; session: SessionRecord & SessionAuthentication; user: U }
  /** The deleted session, for the `refresh.reuse_detected` event. */
  | { status: 'reused' | 'expired'; session: SessionRecord }
  | { status: 'race' | 'unknown' }

/**
 * Spends a presented refresh value. The store's compare-and-swap is the atomic step: of
 * concurrent callers presenting one current value exactly one swaps it; every other one reads
 * the session again and is judged on what the winner left (a race inside the grace window).
 */
export const rotateRefresh = async <U extends UserRecord>(
  store: Store<U>,
  input: RotateRefreshInput,
): Promise<RotateResult<U>> => {
  const { hash, nextHash, nextKeyHash, now } = input
  const read = () => store.findRefresh(input.sessionId === null ? { currentHash: hash } : { sessionId: input.sessionId })
  // Two reads at most: after a lost swap the value is no longer current, so it cannot be judged `rotate` again.
  for (let attempt = 0; attempt < 2; attempt++) {
    const found = await read()
    if (!found) return { status: 'unknown' }
    const { session, user } = found
    // A disabled account has no sessions; a value of one is unknown whatever the row says.
    if (isDisabled(user)) return { status: 'unknown' }
    const verdict = judgeRotation(session, input, now, input)
    if (verdict === 'race') return { status: 'race' }
    if (verdict === 'foreign') return { status: 'unknown' }
    if (verdict !== 'rotate') {
      await store.deleteSession(session.id)
      const { id, userId, createdAt, refreshedAt } = session
      return { status: verdict, session: { id, userId, createdAt, refreshedAt } }
    }
    if (await store.swapRefresh({ sessionId: session.id, from: hash, to: nextHash, keyHash: nextKeyHash, now }))
      return {
        status: 'rotated',
        session: {
          id: session.id,
          userId: session.userId,
          createdAt: session.createdAt,
          refreshedAt: now,
          // A refresh proves nothing new: the next token carries the same last proof.
          authenticatedAt: session.authenticatedAt,
          amr: session.amr,
        },
        user,
      }
  }
  return { status: 'race' }
}
