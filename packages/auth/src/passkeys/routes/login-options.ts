/**
 * POST /passkeys/login/options: request options for a discoverable sign-in. `allowCredentials` is
 * empty, so the browser offers the site's passkeys itself (also in the email field's autofill,
 * conditional mediation); `challengeId` names the challenge for POST /passkeys/login.
 */
import { z } from '@hono/zod-openapi'
import { limitBy } from '../../limits.js'
import { jsonContent } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { PASSKEY_CHALLENGE_SECONDS } from '../ceremony.js'
import type { PasskeyDeps } from '../deps.js'
import { RequestOptionsSchema } from '../schemas.js'

export const LoginOptionsSchema = z
  .object({
    challengeId: z.string().max(64).openapi({ description: 'Single use; send it back with the assertion' }),
    options: RequestOptionsSchema,
    expiresIn: z.int().min(1).max(3600).openapi({ format: 'int32', example: PASSKEY_CHALLENGE_SECONDS }),
  })
  .openapi('PasskeyLoginOptions')

export const passkeyLoginOptions = <U extends UserRecord>({ route, passkeys }: Pick<PasskeyDeps<U>, 'route' | 'passkeys'>) =>
  route.public(
    {
      method: 'post',
      path: '/passkeys/login/options',
      operationId: 'passkeyLoginOptions',
      tags: ['passkeys'],
      summary: 'Start a sign-in with a passkey: request options with an empty allowCredentials (discoverable, autofill)',
      responses: {
        200: jsonContent(LoginOptionsSchema, 'Pass `options` to navigator.credentials.get(); the challenge lives 5 minutes'),
      },
    },
    { limit: { name: 'passkey-login-options', keys: [limitBy.ip] } },
    async (c) => {
      const options = await passkeys.requestOptions('login')
      return c.json({ challengeId: options.challenge, options, expiresIn: PASSKEY_CHALLENGE_SECONDS }, 200)
    },
  )
