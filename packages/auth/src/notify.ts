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
import type { FeatureEvent, FeatureMail } from './features.js'
import type { AuthMethod, FirstFactor } from './store/types.js'

/** A mail that carries a single-use token; the application builds the link around it. */
interface TokenMail<K extends string> {
  kind: K
  /** The address to send to: the account's, or for `change-email` the new one. */
  to: string
  /** The raw single-use token. */
  token: string
}

/** A notice of a change to the account: no token. */
export interface Notice<K extends string> {
  kind: K
  to: string
}

/**
 * Every mail the library asks for: the core's, then each feature's (`features.ts`). Switch on
 * `kind`: the compiler checks the switch covers them.
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
  | Notice<'password-changed'>
  /** Sent to the old address once the new one is confirmed. */
  | (Notice<'email-changed'> & { newEmail: string })
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
  | FeatureMail

export type AuthMailKind = AuthMail['kind']

/** What an `add-credential` code is for: the credential about to be added. */
export type AddedCredential = 'two-factor' | 'passkey'

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

/** An event about one account. */
export type UserEvent<T extends string> = EventBase & { type: T; userId: string }
type SessionEvent<T extends string> = UserEvent<T> & { sessionId: string }

/** How a sign-in was attempted: a password (login), a link or code mailed to the address, a passkey, a provider. */
export type SignInMethod = 'password' | 'email' | 'passkey' | 'oauth'

/** The sign-in method whose proof a two-factor challenge remembers as its first step. */
export const methodOf = (firstFactor: FirstFactor): SignInMethod =>
  (({ pwd: 'password', email: 'email', hwk: 'passkey', fed: 'oauth' }) as const)[firstFactor]

/**
 * One security-relevant step, after it happened: the core's, then each feature's (`features.ts`).
 * Never a password, hash, token or code.
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
  /** A successful sign-in from a browser the account had not signed in from (the `new-sign-in` mail went out). */
  | SessionEvent<'login.new_device'>
  /**
   * The breached-password service gave no usable answer in time: the new password was accepted
   * unchecked. `endpoint`: `signup`, `change-password` or `reset-password`. Never the password,
   * its hash or any part of it.
   */
  | (EventBase & { type: 'breach_check.unavailable'; endpoint: string; userId?: string })
  /** `POST /reauth` proved the holder again; `amr` names the methods (RFC 8176: `pwd`, `otp`, `mfa`). */
  | (SessionEvent<'reauthenticated'> & { amr: AuthMethod[] })
  /** `POST /reauth` with a wrong password (a wrong code is `two_factor.failed`). */
  | SessionEvent<'reauthentication.failed'>
  | FeatureEvent

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
