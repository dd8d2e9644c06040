/**
 * The types the Store interface on docs/guide/stores.md names, as @latchkey/auth/testing exports
 * them for store authors: the block must compile against them, so it cannot name a type the
 * package does not have.
 */
type ConsumeResetInput = import('@latchkey/auth/testing').ConsumeResetInput
type CorePruneCounts = import('@latchkey/auth/testing').CorePruneCounts
type DeleteTwoFactorInput = import('@latchkey/auth/testing').DeleteTwoFactorInput
type EmailChangeOutcome = import('@latchkey/auth/testing').EmailChangeOutcome
type EmailTokenKind = import('@latchkey/auth/testing').EmailTokenKind
type EnableTwoFactorInput = import('@latchkey/auth/testing').EnableTwoFactorInput
type LiveSession = import('@latchkey/auth/testing').LiveSession
type NewAddCredentialCode = import('@latchkey/auth/testing').NewAddCredentialCode
type NewChallenge = import('@latchkey/auth/testing').NewChallenge
type NewEmailToken = import('@latchkey/auth/testing').NewEmailToken
type NewResetToken = import('@latchkey/auth/testing').NewResetToken
type NewSession = import('@latchkey/auth/testing').NewSession
type NewUser = import('@latchkey/auth/testing').NewUser
type PruneInput = import('@latchkey/auth/testing').PruneInput
type ReauthenticateInput = import('@latchkey/auth/testing').ReauthenticateInput
type RememberDeviceInput = import('@latchkey/auth/testing').RememberDeviceInput
type ReplacePasswordInput = import('@latchkey/auth/testing').ReplacePasswordInput
type SessionInfo = import('@latchkey/auth/testing').SessionInfo
type SessionRefreshState = import('@latchkey/auth/testing').SessionRefreshState
type SpendAddCredentialCodeInput = import('@latchkey/auth/testing').SpendAddCredentialCodeInput
type SpendEmailTokenInput = import('@latchkey/auth/testing').SpendEmailTokenInput
type SwapRefreshInput = import('@latchkey/auth/testing').SwapRefreshInput
type TwoFactorRecord = import('@latchkey/auth/testing').TwoFactorRecord
type UserRecord = import('@latchkey/auth/testing').UserRecord
type UserWithHash<U extends UserRecord = UserRecord> = import('@latchkey/auth/testing').UserWithHash<U>
