/**
 * The passkey facet of the {@link Store} (docs/reference/passkeys.md): WebAuthn credentials and
 * their challenges. Each single-use or conditional step is one atomic statement: a challenge is
 * claimed once, a signature counter only moves forward, and a passkey that is its user's last way
 * to sign in is not deleted.
 */

/** A passkey as stored. Never a private key: the authenticator keeps that. */
export interface PasskeyRecord {
  /** The WebAuthn credential id, base64url. */
  id: string
  userId: string
  /** The COSE public key, base64url. */
  publicKey: string
  /** The last signature counter seen; 0 for an authenticator that keeps none. */
  counter: number
  /** What the authenticator reported at registration (`internal`, `hybrid`, `usb`, …). */
  transports: string[]
  /** A passkey that may exist on several devices (WebAuthn's `multiDevice` credential). */
  multiDevice: boolean
  /** Backed up (synced) as of its last use. */
  backedUp: boolean
  name: string
  createdAt: Date
  lastUsedAt: Date | null
}

export type NewPasskey = Omit<PasskeyRecord, 'lastUsedAt'>

/** What a WebAuthn challenge may answer. */
export type PasskeyChallengePurpose = 'register' | 'login' | 'two-factor'

export interface NewPasskeyChallenge {
  /** SHA-256 of the challenge handed to the browser. */
  hash: string
  purpose: PasskeyChallengePurpose
  /** The user that asked (registration, second factor); `null` for a discoverable sign-in. */
  userId: string | null
  /** A second-factor step: the hash of the login challenge it belongs to. */
  boundTo: string | null
  expiresAt: Date
}

export interface UsePasskeyInput {
  id: string
  /** The counter of the assertion: stored only when it is larger (or both are 0). */
  counter: number
  backedUp: boolean
  now: Date
}

/** What deleting a passkey did. */
export type PasskeyRemoval = 'deleted' | 'not_found' | 'last_sign_in'

export interface PasskeyStore {
  /** Stores a passkey; `false`, writing nothing, when its credential id is already stored. */
  createPasskey(input: NewPasskey): Promise<boolean>
  findPasskey(id: string): Promise<PasskeyRecord | null>
  /** The user's passkeys, oldest first. */
  listPasskeys(userId: string): Promise<PasskeyRecord[]>
  /** Renames one of the user's passkeys; `null` when the user has none with this id. */
  renamePasskey(userId: string, id: string, name: string): Promise<PasskeyRecord | null>
  /**
   * Deletes one of the user's passkeys, atomically and only while the user keeps another way to
   * sign in: a password (a non-empty hash), another passkey, or an identity at a provider.
   */
  deletePasskey(userId: string, id: string): Promise<PasskeyRemoval>
  /**
   * Records a use, a compare-and-set on the counter: only while `counter` is larger than the
   * stored one, or both are 0 (an authenticator without a counter). Answers whether it wrote;
   * `false` is a regression (a cloned authenticator, or a replayed assertion).
   */
  usePasskey(input: UsePasskeyInput): Promise<boolean>
  /** Stores a challenge, and deletes every used one and every one expired at `now` (they live minutes). */
  createPasskeyChallenge(input: NewPasskeyChallenge, now: Date): Promise<void>
  /**
   * An unused, unexpired challenge of `purpose`, read without claiming it: who it is bound to, or
   * `null`. (A registration is judged before its challenge is spent: a wrong mailed code spends
   * the code's tries, not the challenge.)
   */
  findPasskeyChallenge(
    hash: string,
    purpose: PasskeyChallengePurpose,
    now: Date,
  ): Promise<{ userId: string | null; boundTo: string | null } | null>
  /**
   * Claims an unused, unexpired challenge of `purpose`, atomically: of concurrent claims exactly
   * one gets it, and it stays used. Answers who it was bound to, or `null`.
   */
  claimPasskeyChallenge(
    hash: string,
    purpose: PasskeyChallengePurpose,
    now: Date,
  ): Promise<{ userId: string | null; boundTo: string | null } | null>
  /** Deletes at most `limit` WebAuthn challenges used, or expired at `now`; answers how many (the sweep's batch: fewer than `limit` means none is left). */
  prunePasskeyChallenges(now: Date, limit: number): Promise<number>
}
