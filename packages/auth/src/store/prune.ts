/** The sweep facet of the {@link Store}: deleting dead rows in bounded batches. */

export interface PruneInput {
  /** A session last refreshed at or before this is past its idle lifetime. */
  deadIfRefreshedBy: Date
  /** A session created at or before this is past its absolute lifetime. */
  deadIfCreatedBy: Date
  /** A reset or email token that was used, or expires at or before this, is spent; an add-credential code expired by then is dead. */
  now: Date
  /** A known device last seen at or before this is forgotten. */
  forgetDevicesSeenBy: Date
  /** At most this many rows of each table in one call, so no call holds a lock for long. */
  limit: number
}

/** What one call deleted of the core's tables, by kind. */
export interface CorePruneCounts {
  sessions: number
  resetTokens: number
  emailTokens: number
  addCredentialCodes: number
  devices: number
}

/** The sweep of the core's tables; each feature's facet deletes its own rows (`sweep` in its facet record). */
export interface PruneStore {
  /**
   * Deletes dead rows, at most `limit` of each kind: sessions past the cutoffs the session core
   * computed, used or expired reset and email tokens, expired add-credential codes and devices
   * last seen before `forgetDevicesSeenBy`. Answers how many of each it deleted; fewer than
   * `limit` of a kind means none of that kind is left.
   */
  prune(input: PruneInput): Promise<CorePruneCounts>
}
