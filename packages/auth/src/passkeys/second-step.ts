/**
 * A passkey as the second step of a sign-in (docs/reference/passkeys.md#a-passkey-as-the-second-step):
 * when the account has passkeys, the challenge may be answered by one of them, with request
 * options whose WebAuthn challenge belongs to that challenge alone.
 */
import type { Store, UserRecord } from '../store/types.js'
import type { ChallengeAlternative } from '../two-factor/second-step.js'
import type { PasskeyCore } from './ceremony.js'

export const passkeyAlternative =
  <U extends UserRecord>(store: Store<U>, passkeys: PasskeyCore): ChallengeAlternative =>
  async (userId, boundTo, firstFactor) => {
    // After a passkey that did not verify the user, a passkey again would be the same factor twice.
    if (firstFactor === 'hwk') return null
    const keys = await store.listPasskeys(userId)
    if (keys.length === 0) return null
    return { method: 'passkey', passkeyOptions: await passkeys.requestOptions('two-factor', { userId, boundTo }, keys) }
  }
