/** The mails and events of passkeys (docs/reference/passkeys.md), for the lists in `features.ts`. */
import type { Notice, UserEvent } from '../notify.js'

/** `passkeyId`: the WebAuthn credential id, base64url. */
type PasskeyEvent<T extends string> = UserEvent<T> & { passkeyId: string }

/** A passkey was added to the account (`name`: the name it was given), or removed. */
export type PasskeyMail = (Notice<'passkey-added'> & { name: string }) | (Notice<'passkey-removed'> & { name: string })

export type PasskeysEvent =
  | PasskeyEvent<'passkey.added'>
  | PasskeyEvent<'passkey.removed'>
  /** An assertion whose signature counter did not increase: a cloned authenticator, or a replay. The sign-in was refused. */
  | PasskeyEvent<'passkey.counter_regressed'>
