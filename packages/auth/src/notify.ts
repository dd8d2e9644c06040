/**
 * What the library tells the application (docs/reference/lifecycle.md#mail, #events): mails through `sendMail`, each with a
 * `kind`, and security events through `onEvent`. Both run after the answer is decided, so a hook
 * that throws or hangs changes neither the answer nor its timing; a failure is logged by kind and
 * name only, never with a token.
 */
import type { Context } from 'hono'
import type { AfterAnswer } from './background.js'
import { type ClientAddress, requestFacts } from './credentials.js'
import { errorSummary } from './errors.js'
import type { AuthMethod, FirstFactor } from './store/types.js'

/** A mail that carries a single-use token; the application builds the link around it. */
interface TokenMail<K extends string> {
  kind: K
  /** The address to send to: the account's, or for `change-email` the new one. */
  to: string
  /** The raw single-use token. */
  token: string
}

/**
 * Sign-in by email (docs/reference/email-sign-in.md): the link's `token` and the 6-digit `code`
 * for the browser that asked, in one mail. `signUp`: the address has no account yet, and using
 * the mail creates one.
 */
export interface SignInMail {
  kind: 'sign-in'
  to: string
  token: string
  code: string
  signUp: boolean
}

/** A notice of a change to the account: no token. */
interface Notice<K extends string> {
  kind: K
  to: string
}

/**
 * What an operator did to the account (docs/guide/operators.md#what-the-user-is-told): say so in
 * the mail, so the owner knows it was the service and not someone with their password.
 */
interface OperatorNotice<K extends string> extends Notice<K> {
  byOperator: true
}

/**
 * Every mail the library asks for. Switch on `kind`: the compiler checks the switch covers them.
 *
 * @example
 * sendMail: (mail) => {
 *   switch (mail.kind) {
 *     case 'reset-password': return send(mail.to, `${APP}/reset-password?token=${mail.token}`)
 *     case 'verify-email': return send(mail.to, `${APP}/verify-email?token=${mail.token}`)
 *     // …
 *   }
 * }
 */
export type AuthMail =
  /** `byOperator`: an operator asked for it on the owner's behalf, not a forgot-password request. */
  | (TokenMail<'reset-password'> & { byOperator?: true })
  | TokenMail<'verify-email'>
  | TokenMail<'change-email'>
  | SignInMail
  | Notice<'password-changed'>
  /** Sent to the old address once the new one is confirmed. */
  | (Notice<'email-changed'> & { newEmail: string })
  | Notice<'two-factor-enabled'>
  /** `byOperator`: an operator removed it for an owner who lost the factor and its recovery codes. */
  | (Notice<'two-factor-disabled'> & { byOperator?: true })
  /** An operator disabled the account: every session ended, and no sign-in opens it until it is enabled. */
  | OperatorNotice<'account-disabled'>
  | OperatorNotice<'account-enabled'>
  /** An operator signed the account out of every session. */
  | OperatorNotice<'signed-out-everywhere'>
  /** An operator marked the address verified. */
  | OperatorNotice<'email-marked-verified'>
  /**
   * A recovery code was spent: `usedFor` says what for (`sign-in`, `reauth`,
   * `disable-two-factor`, `delete-account`), so the owner can tell their own use from someone else's.
   */
  | (Notice<'recovery-code-used'> & { usedFor: RecoveryCodeUse })
  /**
   * The 6-digit code that proves the mailbox before `credential` is added to the account (ten
   * minutes, single use). Say what it is for: a mail the owner did not expect means someone
   * else holds their password.
   */
  | (Notice<'add-credential'> & { code: string; credential: AddedCredential })
  /** The account was deleted; sent to the address it had. */
  | Notice<'account-deleted'>
  /**
   * A sign-in from a browser the account had not signed in from (no device cookie it knows):
   * when (`at`, ISO 8601), the client address and `User-Agent` (each `null` when unknown). Not
   * sent for the sign-in of signup. `userAgent` is the header as sent (its first 256 characters):
   * text whoever signed in chose. Name the browser in the mail by the product and version a parser
   * recognises, or as "an unrecognised browser"; never write this text into the mail.
   */
  | (Notice<'new-sign-in'> & { at: string; ip: string | null; userAgent: string | null })
  /** A passkey was added to the account (`name`: the name it was given). */
  | (Notice<'passkey-added'> & { name: string })
  | (Notice<'passkey-removed'> & { name: string })
  /**
   * An API key was created (`name`, its `scopes`, when it expires, ISO 8601): a key the owner did
   * not make means someone else holds a session of theirs. Never the key.
   */
  | (Notice<'api-key-created'> & { name: string; scopes: string[]; expiresAt: string })
  /** An identity at a provider was linked to the account (`provider`: the provider's name, as configured). */
  | (Notice<'identity-linked'> & { provider: string })
  | (Notice<'identity-unlinked'> & { provider: string })

export type AuthMailKind = AuthMail['kind']

/** What an `add-credential` code is for: the credential about to be added. */
export type AddedCredential = 'two-factor' | 'passkey'

/** What a recovery code was spent for (the `recovery-code-used` mail's `usedFor`). */
export type RecoveryCodeUse = 'sign-in' | 'reauth' | 'disable-two-factor' | 'delete-account'

/** The reset mail (`kind: 'reset-password'`). */
export type ResetMail = Extract<AuthMail, { kind: 'reset-password' }>

interface EventBase {
  /** When it happened: ISO 8601 UTC with milliseconds. */
  at: string
  /** The client address (as the rate limits derive it); `null` when unknown. */
  ip: string | null
  /** The `User-Agent`, at most 256 characters, when one was sent. */
  userAgent?: string
}

type UserEvent<T extends string> = EventBase & { type: T; userId: string }
type SessionEvent<T extends string> = UserEvent<T> & { sessionId: string }
/** `keyId`: the id of an API key (never the key). */
type ApiKeyEvent<T extends string> = UserEvent<T> & { keyId: string }
/** `actorId`: the operator who acted on the account `userId` (docs/guide/operators.md). */
type OperatorEvent<T extends string> = UserEvent<T> & { actorId: string }
/** `passkeyId`: the WebAuthn credential id, base64url. */
type PasskeyEvent<T extends string> = UserEvent<T> & { passkeyId: string }

/** How a sign-in was attempted: a password (login), a link or code mailed to the address, a passkey, a provider. */
export type SignInMethod = 'password' | 'email' | 'passkey' | 'oauth'

/** The sign-in method whose proof a two-factor challenge remembers as its first step. */
export const methodOf = (firstFactor: FirstFactor): SignInMethod =>
  (({ pwd: 'password', email: 'email', hwk: 'passkey', fed: 'oauth' }) as const)[firstFactor]

/**
 * One security-relevant step, after it happened. Never a password, hash, token or code.
 * `userId` whenever the account is known; `sessionId` on every event about one session.
 */
export type AuthEvent =
  | SessionEvent<'signup'>
  /** `method`: how the first factor was proven (also when a second factor finished the sign-in). */
  | (SessionEvent<'login.succeeded'> & { method: SignInMethod; provider?: string })
  /**
   * Wrong password, or (without `userId`) an email with no account; for `method: 'email'`, a
   * wrong, used or expired link or code.
   */
  | (EventBase & { type: 'login.failed'; method: SignInMethod; userId?: string; provider?: string })
  /** The first factor held and a second is due (the 202); `method` as for `login.succeeded`. */
  | (UserEvent<'login.challenged'> & { method: SignInMethod })
  /** A 429: `endpoint` names the limited route (`login`, `signup`, …). */
  | (EventBase & { type: 'rate_limited'; endpoint: string; userId?: string })
  | SessionEvent<'refresh.reuse_detected'>
  | SessionEvent<'logout'>
  | SessionEvent<'session.revoked'>
  | UserEvent<'password.changed'>
  | UserEvent<'password.reset'>
  | UserEvent<'email.verified'>
  | UserEvent<'email.changed'>
  | UserEvent<'account.deleted'>
  | UserEvent<'two_factor.enabled'>
  | UserEvent<'two_factor.disabled'>
  | UserEvent<'two_factor.failed'>
  | UserEvent<'recovery_code.used'>
  /** A successful sign-in from a browser the account had not signed in from (the `new-sign-in` mail went out). */
  | SessionEvent<'login.new_device'>
  /**
   * The breached-password service gave no usable answer in time: the new password was accepted
   * unchecked. `endpoint`: `signup`, `change-password` or `reset-password`. Never the password,
   * its hash or any part of it.
   */
  | (EventBase & { type: 'breach_check.unavailable'; endpoint: string; userId?: string })
  | PasskeyEvent<'passkey.added'>
  | PasskeyEvent<'passkey.removed'>
  /** An assertion whose signature counter did not increase: a cloned authenticator, or a replay. The sign-in was refused. */
  | PasskeyEvent<'passkey.counter_regressed'>
  /** An identity at a provider was linked to the account (`provider`: the configured id), or unlinked. */
  | (UserEvent<'identity.linked'> & { identityId: string; provider: string })
  | (UserEvent<'identity.unlinked'> & { identityId: string; provider: string })
  /** `POST /reauth` proved the holder again; `amr` names the methods (RFC 8176: `pwd`, `otp`, `mfa`). */
  | (SessionEvent<'reauthenticated'> & { amr: AuthMethod[] })
  /** `POST /reauth` with a wrong password (a wrong code is `two_factor.failed`). */
  | SessionEvent<'reauthentication.failed'>
  | ApiKeyEvent<'api_key.created'>
  /** Its owner revoked it (`DELETE /api-keys/{id}`). */
  | ApiKeyEvent<'api_key.revoked'>
  /** An operator (`actorId`) disabled the account `userId`, saying why (`reason`, as the operator typed it). */
  | (OperatorEvent<'admin.user_disabled'> & { reason: string })
  | OperatorEvent<'admin.user_enabled'>
  /** An operator signed the account out of every session. */
  | OperatorEvent<'admin.sessions_revoked'>
  /** An operator removed the second factor and its recovery codes. */
  | OperatorEvent<'admin.two_factor_cleared'>
  /** An operator had the ordinary reset link mailed to the account's address. */
  | OperatorEvent<'admin.password_reset_sent'>
  | OperatorEvent<'admin.email_verified'>

export type AuthEventType = AuthEvent['type']

/** An event as a route reports it: the request supplies `at`, `ip` and `userAgent`. */
export type EventInput = AuthEvent extends infer E ? (E extends AuthEvent ? Omit<E, keyof EventBase> : never) : never

export interface Notifier {
  /** Asks the application to send `mail`, after the answer. */
  mail(mail: AuthMail): void
  /** Reports `event` of the request `c` to `onEvent`, after the answer. */
  event(c: Context, event: EventInput): void
}

export const notifier = (deps: {
  sendMail: (mail: AuthMail) => void | Promise<void>
  onEvent: ((event: AuthEvent) => void | Promise<void>) | undefined
  afterAnswer: AfterAnswer
  clientAddress: ClientAddress
  now: () => Date
  log: (message: string) => void
}): Notifier => ({
  mail(mail) {
    deps.afterAnswer.run('sendMail', async () => {
      try {
        await deps.sendMail(mail)
      } catch (err) {
        deps.log(`sendMail failed (${mail.kind}): ${errorSummary(err)}`)
      }
    })
  },
  event(c, input) {
    const onEvent = deps.onEvent
    if (!onEvent) return
    // Read from the request now: after the answer the context may be gone.
    const { ip, userAgent } = requestFacts(c, deps.clientAddress)
    const event = { ...input, at: deps.now().toISOString(), ip, ...(userAgent === null ? {} : { userAgent }) } as AuthEvent
    deps.afterAnswer.run(`onEvent (${event.type})`, async () => {
      await onEvent(event)
    })
  },
})
