/**
 * POST /passkeys/register: stores the passkey that answered the user's creation options, with the
 * code they mailed (docs/reference/two-factor.md#adding-a-factor-needs-the-mailbox). A wrong origin
 * or rpId, a ceremony in another site's frame, a challenge that is not this user's live one, or a
 * bad attestation → 400, and the mailed code stays usable; a wrong mailed code → 400 and counts
 * toward its five tries, and the challenge stays usable (the response is judged, the code spent,
 * and only then the challenge).
 */
import { z } from '@hono/zod-openapi'
import { AuthError } from '../../errors.js'
import { limitBy } from '../../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { PasskeyDeps } from '../deps.js'
import { PasskeyEmailCode, PasskeyName, PasskeySchema, passkeyJson, RegistrationResponseSchema } from '../schemas.js'

const RegisterBody = z
  .object({
    response: RegistrationResponseSchema,
    emailCode: PasskeyEmailCode,
    name: PasskeyName.optional(),
  })
  .openapi('PasskeyRegisterRequest')

export const invalidPasskey = () =>
  new AuthError('invalid_passkey', {
    detail: 'The passkey response was refused: wrong origin or relying party, or a challenge that is not yours, used or expired.',
    errors: [{ path: 'response', code: 'invalid_passkey', message: 'Passkey response refused; start again with new options' }],
  })

export const passkeyRegister = <U extends UserRecord>(deps: PasskeyDeps<U>) =>
  deps.route.guarded(
    {
      fresh: deps.options.freshAge,
      method: 'post',
      path: '/passkeys/register',
      // A credential that outlives a reset: only the owner of a verified mailbox may add one.
      verifiedEmail: true,
      operationId: 'passkeyRegister',
      tags: ['passkeys'],
      summary: 'Finish adding a passkey with the response of navigator.credentials.create()',
      request: { body: jsonBody(RegisterBody) },
      responses: {
        201: jsonContent(PasskeySchema, 'Added; a notice is mailed'),
        400: problemResponse(
          'Invalid input, a response refused (origin, relying party, challenge, signature), or a wrong, used or expired email code',
        ),
        403: problemResponse('The email address is not verified (`email-unverified`); nothing changed'),
      },
    },
    { limit: { name: 'passkey-register', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const { response, emailCode, name } = c.req.valid('json')
      const { user } = c.var
      const verified = await deps.passkeys.verifyRegistration(user.id, response, () =>
        deps.addCredential.spend(user.id, emailCode),
      )
      if (!verified) throw invalidPasskey()
      const passkey = { ...verified, name: name ?? 'Passkey' }
      if (!(await deps.store.createPasskey(passkey))) throw invalidPasskey()
      deps.notify.event(c, { type: 'passkey.added', userId: user.id, passkeyId: passkey.id })
      deps.notify.mail({ kind: 'passkey-added', to: user.email, name: passkey.name })
      return c.json(passkeyJson({ ...passkey, lastUsedAt: null }), 201)
    },
  )
