/**
 * The two-factor challenge a right first factor gets (docs/reference/two-factor.md), with what may
 * answer it: `totp` and `recovery` always, and `passkey` when the account has one, together with
 * request options listing the account's passkeys whose WebAuthn challenge belongs to this
 * challenge alone (docs/reference/passkeys.md#a-passkey-as-the-second-step).
 */
import { tokenHash } from '../opaque-token.js'
import type { RouteDeps } from '../routes/deps.js'
import type { UserRecord } from '../store/types.js'
import { CHALLENGE_SECONDS } from '../two-factor/factor.js'

export type SecondStepMethod = 'totp' | 'recovery' | 'passkey'

export const secondStep = async <U extends UserRecord>(
  { store, twoFactor, passkeys }: Pick<RouteDeps<U>, 'store' | 'twoFactor' | 'passkeys'>,
  userId: string,
  credentialsVersion: number,
) => {
  const challenge = await twoFactor.challenge(userId, credentialsVersion)
  const keys = passkeys ? await store.listPasskeys(userId) : []
  const methods: SecondStepMethod[] = ['totp', 'recovery', ...(keys.length > 0 ? (['passkey'] as const) : [])]
  return {
    twoFactorRequired: true as const,
    challenge,
    expiresIn: CHALLENGE_SECONDS,
    methods,
    ...(passkeys && keys.length > 0
      ? { passkeyOptions: await passkeys.requestOptions('two-factor', { userId, boundTo: tokenHash(challenge) }, keys) }
      : {}),
  }
}
