/**
 * The options of how long things live and how many an account keeps: access tokens, sessions
 * (`session-lifetimes.ts` reads the result), the refresh race window, reset tokens, the freshness
 * of a proof, and the sweep that deletes what died (`sweep.ts`). Seconds in, milliseconds out
 * where the code counts in milliseconds.
 */
import { positive, positiveInteger } from './option-checks.js'
import type { SessionLifetimes } from './session-lifetimes.js'

export interface LifetimeOptions {
  /** Seconds. Default 900 (15 minutes). */
  accessTokenTtl?: number
  /** Seconds a session lives after its last refresh. Default 30 days. */
  sessionIdleTtl?: number
  /** Seconds a session lives after login, however often refreshed. Default 90 days. */
  sessionAbsoluteTtl?: number
  /** Seconds during which a just-rotated refresh value is refused without revoking (parallel tabs). Default 10; 0 disables. */
  refreshReuseGrace?: number
  /**
   * Most sessions one account keeps. A sign-in past it ends the least recently used session
   * (event `session.revoked`), so a script signing in in a loop cannot pile up rows. Default 100.
   */
  maxSessions?: number
  /** Seconds a reset token lives. Default 1800. */
  resetTokenTtl?: number
  /**
   * Seconds since a session last proved its holder (signup, login, `POST /reauth`) during which
   * the library's sensitive endpoints (change-email, delete-account, two-factor setup, disable and
   * recovery-codes) take the session instead of `currentPassword`. Default 300. A whole number.
   */
  freshAge?: number
  /**
   * Dead sessions and spent reset tokens are deleted by a sweep every `intervalSeconds` (default
   * 600; 0 turns the timer off: call `auth.prune()` yourself), at most `batchSize` rows of a
   * table per statement (default 500).
   */
  prune?: { intervalSeconds?: number; batchSize?: number }
}

export interface ResolvedLifetimeOptions {
  accessTokenTtl: number
  lifetimes: SessionLifetimes
  /** Most sessions per account; a sign-in past it ends the least recently used. */
  maxSessions: number
  resetTokenMs: number
  /** Seconds a session stays fresh for the sensitive endpoints. */
  freshAge: number
  pruneIntervalMs: number
  pruneBatchSize: number
}

const DAY = 24 * 60 * 60

export const resolveLifetimeOptions = (options: LifetimeOptions): ResolvedLifetimeOptions => ({
  accessTokenTtl: positive('accessTokenTtl', options.accessTokenTtl, 15 * 60),
  lifetimes: {
    idleMs: positive('sessionIdleTtl', options.sessionIdleTtl, 30 * DAY) * 1000,
    absoluteMs: positive('sessionAbsoluteTtl', options.sessionAbsoluteTtl, 90 * DAY) * 1000,
    graceMs: positive('refreshReuseGrace', options.refreshReuseGrace, 10, true) * 1000,
  },
  maxSessions: positiveInteger('maxSessions', options.maxSessions, 100),
  resetTokenMs: positive('resetTokenTtl', options.resetTokenTtl, 30 * 60) * 1000,
  freshAge: positiveInteger('freshAge', options.freshAge, 300),
  pruneIntervalMs: positive('prune.intervalSeconds', options.prune?.intervalSeconds, 600, true) * 1000,
  pruneBatchSize: positiveInteger('prune.batchSize', options.prune?.batchSize, 500),
})
