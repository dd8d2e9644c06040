/** POST /resend-verification (docs/reference/lifecycle.md#email-verification): mails a new token to an unverified account. */
import { mailEmailToken } from '../email-tokens.js'
import { limitBy } from '../limits.js'
import { jsonContent, MessageSchema } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

const RESENT = 'If the address is not verified yet, a new verification link is on its way.'

export const resendVerification = <U extends UserRecord>(deps: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'options'>) =>
  deps.route.guarded(
    {
      method: 'post',
      path: '/resend-verification',
      operationId: 'resendVerification',
      tags: ['auth'],
      summary: 'Mail a new verification link, if the address is not verified yet',
      responses: { 202: jsonContent(MessageSchema, 'Accepted; a mail follows only for an unverified address') },
    },
    { limit: { name: 'resend-verification', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const { raw } = c.var.user
      if (!raw.emailVerified) await mailEmailToken(deps, 'verify-email', raw.id, raw.email)
      return c.json({ message: RESENT }, 202)
    },
  )
