/**
 * POST /two-factor/setup: a new TOTP key, pending until enabled with a code; a code is mailed to
 * the verified address (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox).
 */
import { z } from '@hono/zod-openapi'
import { confirmHolder } from '../../current-password.js'
import { CurrentPasswordField } from '../../fields.js'
import { limitBy } from '../../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { alreadyEnabled } from '../codes.js'
import { base32Key, newTotpKey, totpUri } from '../totp.js'

const SetupSchema = z
  .object({
    secret: z.string().max(64).openapi({ description: 'The TOTP key, base32 (RFC 4648) without padding' }),
    uri: z.string().max(512).openapi({ description: 'The `otpauth://totp/…` URI, for a QR code (SHA-1, 6 digits, 30 s)' }),
  })
  .openapi('TwoFactorSetup')

export const setUpTwoFactor = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'route' | 'store' | 'options' | 'twoFactor' | 'addCredential'>,
) => {
  const { route, store, options, twoFactor, addCredential } = deps
  route.guarded(
    {
      tags: ['two-factor'],
      method: 'post',
      path: '/two-factor/setup',
      // A credential that outlives a reset: only the owner of a verified mailbox may add one.
      verifiedEmail: true,
      fresh: options.freshAge,
      orCurrentPassword: true,
      operationId: 'setUpTwoFactor',
      summary:
        'Create a TOTP key (pending until enabled with a code) and mail a 6-digit code to the verified address; a new setup replaces a pending one and its code',
      request: { body: jsonBody(z.object({ currentPassword: CurrentPasswordField }).openapi('TwoFactorSetupRequest')) },
      responses: {
        200: jsonContent(SetupSchema, 'The key, to enter or scan into an authenticator app; a code is on its way by mail'),
        400: problemResponse('Invalid input or a wrong current password'),
        403: problemResponse('The email address is not verified (`email-unverified`); nothing changed'),
        409: problemResponse('Two-factor authentication is already on'),
      },
    },
    { limit: { name: 'two-factor-setup', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { currentPassword } = c.req.valid('json')
      const { user } = c.var
      await confirmHolder(deps, c.var, currentPassword)
      const key = newTotpKey()
      if (!(await store.setPendingTwoFactor(user.id, await twoFactor.box.seal(key, user.id), options.now())))
        throw alreadyEnabled()
      await addCredential.issue(user.raw, 'two-factor')
      return c.json({ secret: base32Key(key), uri: totpUri(options.twoFactorIssuer, user.email, key) }, 200)
    },
  )
}
