/**
 * POST /change-email (docs/reference/lifecycle.md#email-change): re-checks the password (or takes
 * a fresh session, docs/guide/step-up.md) and mails a `change-email` token to the new address; nothing
 * changes yet (POST /confirm-email spends it).
 */
import { z } from '@hono/zod-openapi'
import { confirmHolder } from '../current-password.js'
import { mailEmailToken } from '../email-tokens.js'
import { emailTaken } from '../errors.js'
import { CurrentPasswordField, EmailField } from '../fields.js'
import { limitBy } from '../limits.js'
import { jsonBody, jsonContent, MessageSchema, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { fieldFailure } from '../validation.js'

const ChangeEmailBody = z.object({ currentPassword: CurrentPasswordField, newEmail: EmailField }).openapi('ChangeEmailRequest')
const SENT = 'A confirmation link is on its way to the new address; the email changes when it is used.'

export const changeEmail = <U extends UserRecord>(deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options'>) => {
  const { route, store, options } = deps
  route.guarded(
    {
      fresh: options.freshAge,
      orCurrentPassword: true,
      method: 'post',
      path: '/change-email',
      operationId: 'changeEmail',
      tags: ['auth'],
      summary: 'Mail a confirmation link to a new address; the email changes when it is used',
      request: { body: jsonBody(ChangeEmailBody) },
      responses: {
        202: jsonContent(MessageSchema, 'The link is on its way to the new address'),
        400: problemResponse('Invalid input, a wrong current password, or the current address'),
        409: problemResponse('Another account has this email'),
      },
    },
    {
      peek: { newEmail: z.string() },
      // Per the new address too (docs/reference/limits.md#rate-limits), so no set of accounts can flood one mailbox.
      limit: { name: 'change-email', keys: [limitBy.ip, limitBy.user, limitBy.email('newEmail')] },
      hashes: true,
    },
    async (c) => {
      const { currentPassword, newEmail } = c.req.valid('json')
      const { user } = c.var
      // The proof first: without it, nobody learns whether an address has an account.
      const found = await confirmHolder(deps, c.var, currentPassword)
      if (newEmail === found.user.email) throw fieldFailure('newEmail', 'invalid_value', 'New email is your current email')
      if (await store.findUserByEmail(newEmail)) throw emailTaken()
      await mailEmailToken(deps, 'change-email', user.id, newEmail)
      return c.json({ message: SENT }, 202)
    },
  )
}
