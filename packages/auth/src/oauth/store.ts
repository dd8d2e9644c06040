/**
 * The social sign-in facet of the {@link Store} (docs/guide/social-sign-in.md): identities at
 * providers, keyed by (issuer, subject) and never by an email, and the flows between a start and
 * its callback. Each conditional step is atomic: a flow is claimed once, an identity belongs to one
 * account, and the last way to sign in to an account is not unlinked.
 */

/** An identity as listed: never the provider's tokens. */
export interface IdentityRecord {
  id: string
  userId: string
  /** The configured provider id it was linked through. */
  provider: string
  issuer: string
  subject: string
  /** The email the provider last reported (canonical), or `null`. */
  email: string | null
  createdAt: Date
  lastUsedAt: Date | null
}

export interface NewIdentity extends Omit<IdentityRecord, 'lastUsedAt'> {
  /** The provider's tokens sealed under the encryption keys, or `null` (the default: none kept). */
  sealedTokens: string | null
}

/** An account made by a first sign-in through a provider: no password. */
export interface NewFederatedUser {
  id: string
  name: string
  /** Canonical email. */
  email: string
  /** The provider said `email_verified: true`. */
  emailVerified: boolean
  createdAt: Date
}

/** What creating an account with its identity did: nothing is written unless both were. */
export type FederatedSignUp = 'created' | 'email_taken' | 'identity_taken'

/** What linking did: `already_linked` to this user, `in_use` by another account (nothing written). */
export type IdentityLink = 'linked' | 'already_linked' | 'in_use'

export type IdentityRemoval = 'deleted' | 'not_found' | 'last_sign_in'

export interface UseIdentityInput {
  id: string
  email: string | null
  /** New sealed tokens; `undefined` leaves the stored ones. */
  sealedTokens?: string | null
  now: Date
}

export interface NewOAuthFlow {
  /** SHA-256 of the flow cookie's value. */
  hash: string
  provider: string
  /** SHA-256 of the `state` sent to the provider. */
  stateHash: string
  nonce: string | null
  returnTo: string
  /** A link flow: the user the identity is to be linked to. */
  userId: string | null
  /** A link flow: the session that started it (a reset, a disable or a sign-out that ends it ends the link). */
  sessionId: string | null
  expiresAt: Date
}

export type OAuthFlowRecord = Omit<NewOAuthFlow, 'hash' | 'expiresAt'>

export interface IdentityStore {
  findIdentity(issuer: string, subject: string): Promise<IdentityRecord | null>
  /** The user's identities, oldest first. */
  listIdentities(userId: string): Promise<IdentityRecord[]>
  /**
   * Creates the account and links the identity in one atomic step: `email_taken` when the email
   * has an account, `identity_taken` when the identity is linked already; then nothing is written.
   */
  createFederatedUser(user: NewFederatedUser, identity: NewIdentity): Promise<FederatedSignUp>
  /** Links the identity to `identity.userId` unless (issuer, subject) is linked already. */
  linkIdentity(identity: NewIdentity): Promise<IdentityLink>
  /** Records a sign-in by the identity: the email the provider now reports, the time, new sealed tokens. */
  useIdentity(input: UseIdentityInput): Promise<void>
  /** The sealed tokens of the user's identity at `provider` (the newest used), or `null`. */
  findIdentityTokens(userId: string, provider: string): Promise<string | null>
  /**
   * Identities whose kept tokens are sealed but do not begin with `sealingPrefix` (sealed under
   * another key than the sealing one), by identity id after `afterId`, at most `limit`: the
   * sweep's pages. Identities that keep no tokens are never among them.
   */
  staleTokenSeals(input: {
    sealingPrefix: string
    afterId: string | null
    limit: number
  }): Promise<{ id: string; userId: string; sealedTokens: string }[]>
  /** How many identities' kept tokens do not begin with `sealingPrefix`. */
  countStaleTokenSeals(sealingPrefix: string): Promise<number>
  /** Re-seals an identity's tokens (after a key rotation), only while they are still `from`; answers whether it wrote. */
  resealIdentityTokens(id: string, from: string, to: string): Promise<boolean>
  /**
   * Unlinks one of the user's identities, atomically and only while the user keeps another way
   * to sign in: a password (a non-empty hash), a passkey or another identity.
   */
  deleteIdentity(userId: string, id: string): Promise<IdentityRemoval>
  /** Stores a flow, and deletes every used one and every one expired at `now`. */
  createOAuthFlow(flow: NewOAuthFlow, now: Date): Promise<void>
  /** Claims an unused, unexpired flow, atomically: of concurrent claims exactly one gets it. */
  claimOAuthFlow(hash: string, now: Date): Promise<OAuthFlowRecord | null>
  /** Deletes at most `limit` flows used, or expired at `now`; answers how many (the sweep's batch: fewer than `limit` means none is left). */
  pruneOAuthFlows(now: Date, limit: number): Promise<number>
}
