/**
 * POST /forgot-password: the same 202 whether or not the email has an account. For an
 * account, one fresh reset token replaces any earlier one and goes to the application's
 * `sendMail`; all of that runs after the answer, at a random moment (`SPREAD_MS`) after a fixed
 * beat (`PACE_MS`), and its failures are only logged.
 */
import { z } from '@hono/zod-openapi'
import { atRandomWithin, SPREAD_MS } from '../background.js'
import { EmailField } from '../fields.js'
import { EmailPeek, knownDevice } from '../known-device.js'
import { limitBy } from '../limits.js'
import { opaqueToken, tokenHash } from '../opaque-token.js'
import { jsonBody, jsonContent, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'

const ForgotBody = z.object({ email: EmailField }).openapi('ForgotPasswordRequest')
const Accepted = z.object({ message: z.string().max(200) }).openapi('Accepted')
const MESSAGE = 'If an account exists for this email, a reset link is on its way.'

export const forgotPassword = <U extends UserRecord>({
  route,
  store,
  notify,
  afterAnswer,
  options,
  devices,
}: Pick<RouteDeps<U>, 'route' | 'store' | 'notify' | 'afterAnswer' | 'options' | 'devices'>) =>
  route.public(
    {
      method: 'post',
      path: '/forgot-password',
      operationId: 'forgotPassword',
      tags: ['auth'],
      summary: 'Mail a password reset token',
      request: { body: jsonBody(ForgotBody) },
      responses: {
        202: jsonContent(Accepted, 'Accepted, whether or not the account exists'),
        400: problemResponse('Invalid input'),
      },
    },
    {
      peek: EmailPeek,
      // From a browser the account knows, on its device instead of the email (docs/reference/limits.md#keys).
      lookup: knownDevice({ store, devices }),
      limit: { name: 'forgot-password', keys: [limitBy.ip, limitBy.email(), limitBy.device] },
    },
    async (c) => {
      const { email } = c.req.valid('json')
      // Answer first; look the account up, write the token and mail it off the request path, so
      // neither the status, the body nor the time of the answer depends on the account existing.
      // The work waits for a beat of a clock that does not depend on this request, at least one
      // period away, so a request sent right behind this one never meets it; and from the beat, for
      // a random part of a second (Web Crypto), so that no request can be timed to meet it either:
      // at the beat every address costs the same draw, and the lookup, the token write and the
      // mail (what only an account costs) come at a moment nobody can predict.
      afterAnswer.paced('forgot-password', async () => {
        await atRandomWithin(SPREAD_MS)
        const found = await store.findUserByEmail(email)
        if (!found) return
        const token = opaqueToken()
        await store.createResetToken({
          userId: found.user.id,
          tokenHash: tokenHash(token),
          expiresAt: new Date(options.now().getTime() + options.resetTokenMs),
        })
        // Mail goes to the stored address, never the submitted one.
        notify.mail({ kind: 'reset-password', to: found.user.email, token })
      })
      return c.json({ message: MESSAGE }, 202)
    },
  )
