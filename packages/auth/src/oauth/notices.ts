/** The mails and events of social sign-in (docs/guide/social-sign-in.md), for the lists in `features.ts`. */
import type { Notice, UserEvent } from '../notify.js'

/** An identity at a provider was linked to the account (`provider`: the provider's name, as configured), or unlinked. */
export type IdentityMail =
  | (Notice<'identity-linked'> & { provider: string })
  | (Notice<'identity-unlinked'> & { provider: string })

/** An identity at a provider was linked to the account (`provider`: the configured id), or unlinked. */
export type IdentityEvent =
  | (UserEvent<'identity.linked'> & { identityId: string; provider: string })
  | (UserEvent<'identity.unlinked'> & { identityId: string; provider: string })
