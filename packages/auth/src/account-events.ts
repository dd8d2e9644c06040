/**
 * What each account event revokes, in one table (docs/reference/lifecycle.md#what-each-account-event-revokes).
 * A store decides none of it: the method of an event spends or compare-and-sets its own fact (the
 * token, the version, the pending key) and, in the same atomic step, applies the {@link Revocation}
 * the core hands it (`revoke`). The conformance suite walks this table over every store, so a rule
 * added here fails every store that does not apply what it is handed.
 */

/**
 * A closed vocabulary: every target a revocation may name. Each dialect's revocation primitive
 * implements each one (`revokeSteps`, `revokePostgres`); a new target is a compile error
 * in every store until it does.
 */
export interface Revocation {
  /** The user's sessions: every one, or every one but the session that made the change (`keepSessionId`). */
  sessions?: 'all' | 'others'
  /** Unused reset tokens. */
  resetTokens?: true
  /** Unused email tokens: pending email changes (`change-email`) only, or every kind. */
  emailTokens?: 'change-email' | 'all'
  /** Login challenges: a password step passed, its second step not answered yet. */
  challenges?: true
  /** The second factor, pending or enabled, with its recovery codes. */
  twoFactor?: true
  /** The password: the account is left without one (only sign-in by email opens it). */
  password?: true
  /** Bumps the credentials version: a step that verified the password before this writes nothing. */
  credentialsVersion?: true
  /** Every API key of the user (docs/guide/api-keys.md#what-revokes-a-key). */
  apiKeys?: true
  /**
   * Every identity at a provider linked to the user: on an unverified account, one a provider
   * linked without vouching for the address (docs/guide/social-sign-in.md#who-the-identity-is).
   */
  identities?: true
}

/** The revocation targets, in the order the docs' table lists them. */
export const REVOCATION_TARGETS = [
  'sessions',
  'resetTokens',
  'emailTokens',
  'challenges',
  'twoFactor',
  'password',
  'credentialsVersion',
  'apiKeys',
  'identities',
] as const satisfies readonly (keyof Revocation)[]

/** An event with no session of its own to keep: `sessions: 'others'` would mean nothing there. */
type Sessionless = Revocation & { sessions?: 'all' }
/** An event whose store method takes no revocation yet: a rule here is a compile error until it does. */
type Fixed = Record<never, never>

/**
 * The first proof of the mailbox of an unverified account, by whichever mail: what was set up
 * before it (by whoever typed the address) goes (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox).
 */
const FIRST_PROOF = {
  sessions: 'all',
  emailTokens: 'change-email',
  challenges: true,
  twoFactor: true,
  password: true,
  credentialsVersion: true,
  apiKeys: true,
  identities: true,
} as const

/** Every account event and what it revokes. */
export const accountEvents = {
  /** `POST /auth/change-password` (`replacePassword`). */
  'password-changed': { sessions: 'others', resetTokens: true, emailTokens: 'change-email', credentialsVersion: true },
  /** `POST /auth/reset-password` (`consumeResetToken`): the spent token is used, the rest deleted. */
  'password-reset': { sessions: 'all', resetTokens: true, emailTokens: 'change-email', credentialsVersion: true, apiKeys: true },
  /**
   * `POST /auth/reset-password` (`consumeResetToken`) of an unverified account: the first proof of
   * the mailbox, so an identity a provider linked before it (without vouching for the address) goes too.
   */
  'password-reset-first-proof': {
    sessions: 'all',
    resetTokens: true,
    emailTokens: 'change-email',
    credentialsVersion: true,
    apiKeys: true,
    identities: true,
  },
  /** `POST /auth/verify-email` (`verifyEmail`) from the password's holder: a live session of the account, or its password. */
  'email-verified': {},
  /**
   * `POST /auth/verify-email` (`settleEmailVerification`) from anyone else, on an unverified
   * account: the first proof of the mailbox, as a first sign-in by email.
   */
  'email-verification-settled': FIRST_PROOF,
  /** `POST /auth/confirm-email` (`confirmEmailChange`), when the address changed. */
  'email-change-confirmed': {
    sessions: 'all',
    resetTokens: true,
    emailTokens: 'all',
    credentialsVersion: true,
    apiKeys: true,
  },
  /** `POST /auth/two-factor/enable` (`enableTwoFactor`). */
  'two-factor-enabled': { sessions: 'others', credentialsVersion: true },
  /** `POST /auth/two-factor/disable` (`deleteTwoFactor`). */
  'two-factor-disabled': { twoFactor: true, challenges: true },
  /**
   * The first sign-in by email of an unverified account (`settleEmailSignIn`): the first proof of
   * the mailbox, so whatever was set up before it (by whoever typed the address) goes.
   */
  'email-sign-in-settled': FIRST_PROOF,
  /** `POST /auth/passkeys` (`createPasskey`). */
  'passkey-added': {},
  /** `DELETE /auth/passkeys/{id}` (`deletePasskey`). */
  'passkey-removed': {},
  /** A provider's identity linked (`linkIdentity`): other sessions are kept; a notice is mailed. */
  'identity-linked': {},
  /** `DELETE /auth/identities/{id}` (`deleteIdentity`): other sessions are kept; a notice is mailed. */
  'identity-unlinked': {},
  /**
   * `POST /auth/delete-account` (`deleteUser`): the user row goes, and every row of the user with
   * it (`ON DELETE CASCADE`), so every target is revoked.
   */
  /**
   * `POST /auth/admin/users/{id}/disable` (`setUserDisabled`): every session and API key ends, and
   * what was pending (a reset, an email change, a second step) dies with them; the version moves
   * on, so a sign-in that verified its credential before this opens nothing.
   */
  'account-disabled': {
    sessions: 'all',
    resetTokens: true,
    emailTokens: 'change-email',
    challenges: true,
    credentialsVersion: true,
    apiKeys: true,
  },
  /** `POST /auth/admin/users/{id}/enable` (`setUserDisabled`): nothing comes back, nothing more goes. */
  'account-enabled': {},
  /** `DELETE /auth/admin/users/{id}/sessions` (`revokeUser`): signed out everywhere, a pending second step included. */
  'signed-out-by-operator': { sessions: 'all', challenges: true, credentialsVersion: true },
  /** `DELETE /auth/admin/users/{id}/two-factor` (`deleteTwoFactor`): for a user who lost the factor and its codes. */
  'two-factor-cleared-by-operator': { twoFactor: true, challenges: true },
  /** `POST /auth/admin/users/{id}/verify-email` (`markEmailVerified`). */
  'email-verified-by-operator': {},
  'account-deleted': {
    sessions: 'all',
    resetTokens: true,
    emailTokens: 'all',
    challenges: true,
    twoFactor: true,
    password: true,
    credentialsVersion: true,
    apiKeys: true,
    identities: true,
  },
} as const satisfies {
  'password-changed': Revocation
  'password-reset': Sessionless
  'password-reset-first-proof': Sessionless
  'email-verified': Sessionless
  'email-verification-settled': Sessionless
  'email-change-confirmed': Sessionless
  'two-factor-enabled': Revocation
  'two-factor-disabled': Revocation
  'email-sign-in-settled': Sessionless
  'passkey-added': Fixed
  'passkey-removed': Fixed
  'identity-linked': Fixed
  'identity-unlinked': Fixed
  'account-disabled': Sessionless
  'account-enabled': Sessionless
  'signed-out-by-operator': Sessionless
  'two-factor-cleared-by-operator': Sessionless
  'email-verified-by-operator': Fixed
  'account-deleted': Required<Revocation>
}

export type AccountEvent = keyof typeof accountEvents
/** The table's shape: what a conformance walk over another table (a rule added) must give. */
export type AccountEventTable = { readonly [E in AccountEvent]: Revocation }
