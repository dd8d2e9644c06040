/**
 * A session's last proof (docs/reference/credentials.md#step-up): the RFC 8176 methods it names
 * (`amr`), and whether it is fresh enough for a route that asks. Judged from the session record,
 * never from the access token alone. Recording a proof is the session core's (`start`,
 * `reauthenticate`).
 */
import type { AuthMethod, FirstFactor, SessionAuthentication } from './store/types.js'

/** The second step: a TOTP or recovery code, or a passkey. */
export type SecondFactor = 'otp' | 'hwk'

/** RFC 8176 for a passkey whose authenticator verified the user (PIN, biometrics): two factors in one. */
export const USER_VERIFIED_PASSKEY: readonly AuthMethod[] = ['hwk', 'user', 'mfa']

/** The methods of one proof that also verified its user: the proof, `user`, and `mfa` (two factors in one). */
export const userVerified = (first: FirstFactor): AuthMethod[] => [first, 'user', 'mfa']

/**
 * The RFC 8176 methods of a proof (docs/reference/credentials.md#step-up): the first factor, the
 * second when there was one, and `mfa` when there were two.
 */
export const amrOf = (first: FirstFactor, second?: SecondFactor): AuthMethod[] =>
  second === undefined ? [first] : [first, second, 'mfa']

/**
 * Whether a session's last proof is at most `maxAgeSeconds` old at `now` (a route's `fresh`, the
 * sensitive endpoints' `freshAge`). Judged from the session record, so a re-authentication
 * freshens every access token of the session.
 */
export const isFresh = (session: SessionAuthentication, now: Date, maxAgeSeconds: number): boolean =>
  now.getTime() - session.authenticatedAt.getTime() <= maxAgeSeconds * 1000
