/**
 * What a presented refresh value means for its session: the one rule both bundled stores apply
 * inside their atomic rotation step, so the dialects cannot disagree on it. A session keeps
 * only its current value and the one that value replaced.
 */
import type { RotateRefreshInput } from './types.js'

/** The refresh state of one session row, as the store read it under its lock. */
export interface SessionRefreshState {
  refreshHash: string | null
  previousRefreshHash: string | null
  rotatedAt: Date | null
  createdAt: Date
  refreshedAt: Date
}

/** `rotate`: spend the value and make `nextHash` current; the others as {@link RotateResult}. */
export type RotationVerdict = 'rotate' | 'race' | 'reused' | 'expired' | 'unknown'

export const judgeRotation = (state: SessionRefreshState | undefined, input: RotateRefreshInput): RotationVerdict => {
  if (!state) return 'unknown'
  const now = input.now.getTime()
  if (state.refreshHash === input.hash) {
    const alive = now < state.refreshedAt.getTime() + input.idleMs && now < state.createdAt.getTime() + input.absoluteMs
    return alive ? 'rotate' : 'expired'
  }
  // Two tabs refreshing at once present the same value: the second finds it just replaced.
  if (state.previousRefreshHash === input.hash && state.rotatedAt && now - state.rotatedAt.getTime() < input.graceMs)
    return 'race'
  // Any other value for a live session id is one this session was issued before: a copy of it
  // is in someone else's hands.
  return 'reused'
}
