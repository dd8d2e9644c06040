/**
 * The mailbox proof before a credential that outlives a password reset is added (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox):
 * the second factor now, a passkey later. Setting one up mails a 6-digit code to the account's
 * verified address; adding it takes the code back. A password thief who lacks the mailbox cannot
 * add a credential that would lock the owner out, and the owner's reset then removes the thief.
 *
 * One code per account at a time (a new request replaces it), ten minutes, the fifth wrong code
 * kills it, spent once. The store keeps SHA-256 of the user id and the code: a hash cannot hide
 * a million possible codes from someone who reads the database, but such a reader also needs the
 * account's session and password within the ten minutes, and learns nothing that outlives them.
 */
import { AuthError } from './errors.js'
import type { AddedCredential, Notifier } from './notify.js'
import { tokenHash } from './opaque-token.js'
import type { Store, UserRecord } from './store/types.js'

/** A code lives ten minutes. */
export const ADD_CREDENTIAL_CODE_SECONDS = 600
/** The fifth wrong code kills it. */
export const ADD_CREDENTIAL_CODE_MAX_FAILURES = 5

/** What the store keeps of a code of `userId`. */
export const addCredentialCodeHash = (userId: string, code: string): string => tokenHash(`add-credential:${userId}:${code}`)

/** Six uniform random digits: values of 2^32 past the last whole million are drawn again. */
export const newAddCredentialCode = (): string => {
  const limit = 2 ** 32 - (2 ** 32 % 1_000_000)
  const draw = new Uint32Array(1)
  do crypto.getRandomValues(draw)
  while ((draw[0] ?? limit) >= limit)
  return String((draw[0] ?? 0) % 1_000_000).padStart(6, '0')
}

/** 403 for adding a credential before the address is verified. */
export const emailUnverified = () =>
  new AuthError('email_unverified', {
    detail: 'Verify your email address first (the link in the verification mail, or a password reset).',
  })

/** 400 for a wrong, used or expired mailed code, with its `errors[]` entry. */
export const invalidEmailCode = () =>
  new AuthError('invalid_email_code', {
    detail: 'The code from the email is wrong, used or expired; set up again for a new one.',
    errors: [{ path: 'emailCode', code: 'wrong_code', message: 'Email code is wrong, used or expired' }],
  })

export type AddCredentialCodes = ReturnType<typeof addCredentialCodes>

export const addCredentialCodes = <U extends UserRecord>({
  store,
  notify,
  now,
}: {
  store: Store<U>
  notify: Notifier
  now: () => Date
}) => ({
  /**
   * Mails a new code to a verified account (the earlier one dies); a 403 {@link emailUnverified}
   * for an unverified one, before anything changes.
   */
  async issue(user: UserRecord, credential: AddedCredential): Promise<void> {
    if (!user.emailVerified) throw emailUnverified()
    const code = newAddCredentialCode()
    await store.createAddCredentialCode({
      userId: user.id,
      codeHash: addCredentialCodeHash(user.id, code),
      expiresAt: new Date(now().getTime() + ADD_CREDENTIAL_CODE_SECONDS * 1000),
    })
    notify.mail({ kind: 'add-credential', to: user.email, code, credential })
  },

  /** Spends the user's code when `code` is it; otherwise a 400 {@link invalidEmailCode}, counting a wrong try. */
  async spend(userId: string, code: string): Promise<void> {
    const spent = await store.spendAddCredentialCode({
      userId,
      codeHash: addCredentialCodeHash(userId, code),
      now: now(),
      maxFailures: ADD_CREDENTIAL_CODE_MAX_FAILURES,
    })
    if (!spent) throw invalidEmailCode()
  },
})
