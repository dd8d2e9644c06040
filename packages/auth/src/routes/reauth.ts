/**
 * POST /reauth (docs/guide/step-up.md): the signed-in holder proves who they are again — the
 * password, and a code when the account has a second factor — and the same session gets a new
 * `authenticatedAt`, so routes with `fresh` and the sensitive endpoints let it through. The
 * refresh cookie is left as it is. A passkey with user verification will be a proof on its own
 * (`proofOf` is where it goes).
 */

import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { checkCurrentPassword, type Holder, wrongPassword } from '../current-password.js'
import { AuthError } from '../errors.js'
import { PasswordField } from '../fields.js'
import type { GuardVariables } from '../guard.js'
import { limitBy } from '../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../openapi.js'
import type { RouteDeps } from '../route-deps.js'
import { amrOf } from '../session-core.js'
import type { UserRecord } from '../store/types.js'
import { AnyCode, wrongCode } from '../two-factor/codes.js'
import { AuthResultSchema } from '../user-json.js'

const ReauthBody = z
  .object({
    password: PasswordField,
    code: AnyCode.optional().openapi({
      description:
        'Required when the account has two-factor authentication on: a code of the authenticator app, or an unused recovery code',
    }),
  })
  .openapi('ReauthRequest')

type Deps<U extends UserRecord> = Pick<RouteDeps<U>, 'route' | 'store' | 'sessions' | 'notify' | 'twoFactor' | 'options'>

const codeRequired = () =>
  new AuthError('wrong_code', {
    detail: 'This account has two-factor authentication on: send a code from the app (or a recovery code) with the password.',
    errors: [{ path: 'code', code: 'code_required', message: 'Code is required for this account' }],
  })

export const reauth = <U extends UserRecord>(deps: Deps<U>) => {
  const { route, store, sessions, notify, twoFactor } = deps

  /**
   * What the request proves, in order: the password (wrong → 400, nothing spent), then the
   * second factor's code when the account has one. Answers the version read with the password.
   */
  const proofOf = async (
    c: Context,
    holder: Holder<U> & Pick<GuardVariables<U>, 'sessionId'>,
    body: z.infer<typeof ReauthBody>,
  ) => {
    const { user, sessionId } = holder
    let found: Awaited<ReturnType<typeof checkCurrentPassword<U>>>
    try {
      found = await checkCurrentPassword(deps, holder, body.password, 'password')
    } catch (err) {
      if (err instanceof AuthError && err.code === 'wrong_password')
        notify.event(c, { type: 'reauthentication.failed', userId: user.id, sessionId })
      throw err
    }
    const factor = await store.findTwoFactor(user.id)
    if (!factor?.enabledAt) return { credentialsVersion: found.credentialsVersion, code: false }
    if (body.code === undefined) throw codeRequired()
    const spent = await twoFactor.spend(user.id, factor, body.code, true)
    if (!spent) {
      notify.event(c, { type: 'two_factor.failed', userId: user.id })
      throw wrongCode()
    }
    if (spent === 'recovery') {
      notify.event(c, { type: 'recovery_code.used', userId: user.id })
      notify.mail({ kind: 'recovery-code-used', to: found.user.email, usedFor: 'reauth' })
    }
    return { credentialsVersion: found.credentialsVersion, code: true }
  }

  route.guarded(
    {
      method: 'post',
      path: '/reauth',
      operationId: 'reauthenticate',
      tags: ['auth'],
      summary: 'Prove who you are again (password, and a code when two-factor is on): the session becomes fresh',
      description:
        'For operations that document `x-fresh`. The same session gets a new `authenticatedAt` (the new access token carries it as `auth_time`, with `amr`); the refresh cookie is left as it is.',
      request: { body: jsonBody(ReauthBody) },
      responses: {
        200: jsonContent(AuthResultSchema, 'The session is fresh; a new access token for it (the refresh cookie is unchanged)'),
        400: problemResponse('Invalid input, a wrong password, or a missing, wrong or used code'),
      },
    },
    { limit: { name: 'reauth', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { user, sessionId } = c.var
      const proof = await proofOf(c, c.var, c.req.valid('json'))
      const amr = amrOf({ password: true, code: proof.code })
      const body = await sessions.reauthenticate(user.raw, sessionId, proof.credentialsVersion, amr)
      // The password was replaced while it was being checked: it is no longer the proof it was.
      if (!body) throw wrongPassword('password')
      notify.event(c, { type: 'reauthenticated', userId: user.id, sessionId, amr })
      return c.json(body, 200)
    },
  )
}
