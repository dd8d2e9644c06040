/**
 * POST /email-sign-in (docs/reference/email-sign-in.md#asking-for-a-mail): the same 202 and a
 * fresh `flow` for every address. The values are made for every request alike; the store write
 * (which kills the earlier mail it replaces) and the mail run after the answer, on the fixed beat of
 * paced work (`background.ts`), and the write is the same for an address with an account and one
 * without, so neither the answer nor the request after it tells them apart (the forgot-password
 * rule, docs/reference/endpoints.md#forgot-password).
 */
import { z } from '@hono/zod-openapi'
import { atRandomWithin, SPREAD_MS } from '../background.js'
import { EmailField } from '../fields.js'
import { EmailPeek, knownDevice } from '../known-device.js'
import { limitBy } from '../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import { newSignIn, SIGN_IN_TTL_MS } from './flow.js'

const StartBody = z.object({ email: EmailField }).openapi('EmailSignInRequest')

export const EmailSignInStarted = z
  .object({
    message: z.string().max(200),
    flow: z.string().length(43).openapi({
      description:
        'Send it back with the 6-digit code from the mail to POST /auth/email-sign-in/verify. Every answer carries one, whether or not a mail was sent.',
    }),
  })
  .openapi('EmailSignInStarted')

const MESSAGE = 'If this address can sign in, a sign-in link and code are on their way.'

export const startEmailSignIn = <U extends UserRecord>({
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
      path: '/email-sign-in',
      operationId: 'emailSignIn',
      tags: ['auth'],
      summary: 'Mail a sign-in link and code',
      description:
        'Answers 202 and a `flow` for every address alike. For an account it mails (`kind: sign-in`) a link token and a 6-digit code bound to this `flow`, both spent by POST /auth/email-sign-in/verify within 15 minutes; a new request for the address kills the previous mail of the same browser when the account knows that browser, else the previous mail of every other request (never the mail of a known browser). An address without an account gets no mail unless sign-up by email is on.',
      request: { body: jsonBody(StartBody) },
      responses: {
        202: jsonContent(EmailSignInStarted, 'Accepted, whether or not the address has an account'),
        400: problemResponse('Invalid input'),
      },
    },
    {
      peek: EmailPeek,
      // From a browser the account knows: counted on its device instead of the email
      // (docs/reference/limits.md#keys), and its mail is its own, which no other request ends.
      lookup: knownDevice({ store, devices }),
      limit: { name: 'email-sign-in', keys: [limitBy.ip, limitBy.email(), limitBy.device] },
    },
    async (c) => {
      const { email } = c.req.valid('json')
      const deviceHash = c.var.subject?.deviceHash ?? null
      const { flow, token, code, hashes } = newSignIn()
      const now = options.now()
      // Not now, but at the next beat of a clock that does not depend on this request: a request
      // sent right behind this one never meets the write or the mail, with or without an account.
      afterAnswer.paced('email-sign-in', async () => {
        const account = await store.startEmailSignIn({
          ...hashes,
          email,
          deviceHash,
          now,
          expiresAt: new Date(now.getTime() + SIGN_IN_TTL_MS),
          signUp: options.emailSignUp,
        })
        if (!account && !options.emailSignUp) return
        // The mail's own work (the application's hook: an SMTP exchange) starts at a random moment
        // of the next second, so it falls behind any later request, not behind this one's.
        await atRandomWithin(SPREAD_MS)
        // Mail goes to the address as the account stores it, never the submitted text.
        if (account) notify.mail({ kind: 'sign-in', to: account.email, token, code, signUp: false })
        else if (options.emailSignUp) notify.mail({ kind: 'sign-in', to: email, token, code, signUp: true })
      })
      return c.json({ message: MESSAGE, flow }, 202)
    },
  )
