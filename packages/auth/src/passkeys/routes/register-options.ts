/**
 * POST /passkeys/register/options: creation options for a new passkey of the signed-in user: a
 * resident key, user verification preferred, attestation `none`, the user's passkeys excluded
 * (so an authenticator that holds one says so instead of making a second). A passkey outlives a
 * password reset, so only a verified account may add one, and a 6-digit code is mailed for the
 * registration to bring back (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox).
 */

import { limitBy } from '../../limits.js'
import { jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from '../deps.js'
import { CreationOptionsSchema } from '../schemas.js'

export const passkeyRegisterOptions = <U extends UserRecord>(deps: PasskeyDeps<U>) =>
  deps.route.guarded(
    {
      fresh: deps.options.freshAge,
      method: 'post',
      path: '/passkeys/register/options',
      // A credential that outlives a reset: only the owner of a verified mailbox may add one.
      verifiedEmail: true,
      operationId: 'passkeyRegisterOptions',
      tags: ['passkeys'],
      summary: 'Start adding a passkey: creation options for navigator.credentials.create()',
      responses: {
        200: jsonContent(
          CreationOptionsSchema,
          'The options; the challenge lives 5 minutes and only this user can answer it; a code is on its way by mail',
        ),
        403: problemResponse('The email address is not verified (`email-unverified`); nothing changed'),
      },
    },
    { limit: { name: 'passkey-register-options', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const { user } = c.var
      const options = await deps.passkeys.registrationOptions(user.raw, await deps.store.listPasskeys(user.id))
      await deps.addCredential.issue(user.raw, 'passkey')
      return c.json(options, 200)
    },
  )
