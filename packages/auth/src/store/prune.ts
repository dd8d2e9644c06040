/** The sweep facet of the {@link Store}: deleting dead rows in bounded batches. */

export interface PruneInput {
  /** A session last refreshed at or before this is past its idle lifetime. */
  deadIfRefreshedBy: Date
  /** A session created at or before this is past its absolute lifetime. */
  deadIfCreatedBy: Date
  /**
   * A reset or email token, a login or WebAuthn challenge or a social sign-in flow that was used,
   * or expires at or before this, is spent.
   */
  now: Date
  /** A known device last seen at or before this is forgotten. */
  forgetDevicesSeenBy: Date
  /**
   * An API key that expired at or before this is deleted (the core gives an expired key a grace,
   * docs/guide/api-keys.md#expiry, so its owner still sees it listed for a while).
   */
  forgetApiKeysExpiredBy: Date
  /** At most this many rows of each table in one call, so no call holds a lock for long. */
  limit: number
}

/** The sweep. */
export interface PruneStore {
  /**
   * Deletes dead rows, at most `limit` of each kind: sessions past the cutoffs the session core
   * computed, used or expired reset and email tokens, login and WebAuthn challenges and social
   * sign-in flows, expired add-credential codes, devices last seen before `forgetDevicesSeenBy`,
   * and API keys that expired before `forgetApiKeysExpiredBy` (a revoked key is deleted when it is
   * revoked). Answers how many of each it deleted; fewer than `limit` of a kind means none of that
   * kind is left.
   */
  prune(input: PruneInput): Promise<{
    sessions: number
    resetTokens: number
    emailTokens: number
    challenges: number
    addCredentialCodes: number
    devices: number
    apiKeys: number
    oauthFlows: number
    passkeyChallenges: number
  }>
}
