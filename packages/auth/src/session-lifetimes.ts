/**
 * How long a session lives: its idle and absolute lifetimes and the refresh race window, what is
 * left of a session at a moment, and the cutoffs the sweep prunes by
 * (docs/reference/credentials.md#session-lifetimes). A lifetime is read here and nowhere else; a
 * store never sees one.
 */
import type { SessionRecord } from './store/types.js'

export interface SessionLifetimes {
  /** A session dies when not refreshed for this long. */
  idleMs: number
  /** A session dies this long after login, however often refreshed. */
  absoluteMs: number
  /** A value rotated away less than this long ago is refused without revoking anything (parallel tabs). */
  graceMs: number
}

/** Milliseconds the session has left at `now`: the sooner of its idle and its absolute deadline. Dead at ≤ 0. */
export const sessionRemainingMs = (
  session: Pick<SessionRecord, 'createdAt' | 'refreshedAt'>,
  now: Date,
  lifetimes: SessionLifetimes,
): number =>
  Math.min(session.refreshedAt.getTime() + lifetimes.idleMs, session.createdAt.getTime() + lifetimes.absoluteMs) - now.getTime()

/** The cutoffs at `now` for pruning: a session refreshed or created at or before them is dead. */
export const deadSessionCutoffs = (now: Date, lifetimes: SessionLifetimes) => ({
  deadIfRefreshedBy: new Date(now.getTime() - lifetimes.idleMs),
  deadIfCreatedBy: new Date(now.getTime() - lifetimes.absoluteMs),
})
