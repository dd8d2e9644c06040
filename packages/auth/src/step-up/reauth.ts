/**
 * POST /reauth (docs/guide/step-up.md): the signed-in holder proves who they are again — the
 * password or one of their passkeys, and a code when the account has a second factor (a passkey
 * with user verification needs none) — and the same session gets a new `authenticatedAt`, so
 * routes with `fresh` and the sensitive endpoints let it through. The refresh cookie is left as it
 * is. (docs/reference/passkeys.md#re-authentication)
 */

import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { checkCurrentPassword, type Holder, wrongPassword } from '../current-password.js'
import { AuthError } from '../errors.js'
import { PasswordField } from '../fields.js'
import type { GuardVariables } from '../guard.js'
import { limitBy } from '../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../openapi.js'
import type { ReauthProof } from '../reauth-proof.js'
import type { RouteDeps } from '../route-deps.js'
import { amrOf, userVerified } from '../session-proof.js'
import type { StepUpCode } from '../step-up-code.js'
import type { UserRecord } from '../store/types.js'
import { AuthResultSchema } from '../user-json.js'
import { fieldCode } from '../validation.js'

/** The password alone; with proofs registered (a passkey), the password or one of them. */
const reauthBody = (proofs: readonly ReauthProof[], stepUp: StepUpCode) => {
  const Code = stepUp.field(
    'Required when the account has two-factor authentication on (unless a passkey verified the user): a code of the authenticator app, or an unused recovery code',
  )
  const [first] = proofs
  if (!first) return z.object({ password: PasswordField, code: Code }).openapi('ReauthRequest')
  const others = proofs.map((proof) => proof.named).join(' or ')
  const given = (body: Record<string, unknown>) =>
    [body.password, ...proofs.map((proof) => body[proof.field])].filter((value) => value !== undefined).length
  return z
    .object({
      password: PasswordField.optional(),
      ...Object.fromEntries(proofs.map((proof) => [proof.field, proof.schema.optional()])),
      code: Code,
    })
    .refine((body) => given(body) > 0, {
      message: `Password (or ${others}) is required`,
      path: ['password'],
      params: fieldCode('required'),
    })
    .refine((body) => given(body) < 2, {
      message: `Send the password or ${others}, not both`,
      path: [first.field],
    })
    .openapi('ReauthRequest')
}
type ReauthBody = { password?: string; code?: string } & Record<string, unknown>

type Deps<U extends UserRecord> = Pick<
  RouteDeps<U>,
  'route' | 'store' | 'sessions' | 'notify' | 'stepUpCode' | 'options' | 'reauthProofs'
>

const codeRequired = () =>
  new AuthError('wrong_code', {
    detail:
      'This account has two-factor authentication on: send a code from the app (or a recovery code) with the password or passkey.',
    errors: [{ path: 'code', code: 'code_required', message: 'Code is required for this account' }],
  })

type Caller<U extends UserRecord> = Holder<U> & Pick<GuardVariables<U>, 'sessionId'>

export const reauth = <U extends UserRecord>(deps: Deps<U>) => {
  const { route, store, sessions, notify, stepUpCode, reauthProofs } = deps

  /**
   * The first factor: the password (wrong → 400, nothing spent) or a registered proof (a passkey
   * of the caller's: its challenge spent either way). Answers the account as read after it, what
   * it proved, and the refusal for a proof that is no longer current.
   */
  const firstOf = async (c: Context, holder: Caller<U>, body: ReauthBody) => {
    const { user } = holder
    if (body.password !== undefined) {
      const found = await checkCurrentPassword(deps, holder, body.password, 'password')
      return { found, first: 'pwd' as const, complete: false, wrong: () => wrongPassword('password') }
    }
    const proof = reauthProofs.find(({ field }) => body[field] !== undefined)
    if (!proof) throw wrongPassword('password')
    const { userVerified } = await proof.prove(c, user.id, body[proof.field])
    const found = await store.findUserById(user.id)
    if (!found) throw wrongPassword('password')
    return { found, first: proof.method, complete: userVerified, wrong: proof.wrong }
  }
  /** The codes of a wrong first factor: the password's and each proof's. */
  const wrongFirst = new Set(['wrong_password', ...reauthProofs.map((proof) => proof.wrong().code)])

  /**
   * What the request proves, in order: the password or a passkey, then the second factor's code
   * when the account has one and the passkey did not verify the user. Answers the credentials
   * version read with the first factor, and the methods.
   */
  const proofOf = async (c: Context, holder: Caller<U>, body: ReauthBody) => {
    const { user, sessionId } = holder
    let proven: Awaited<ReturnType<typeof firstOf>>
    try {
      proven = await firstOf(c, holder, body)
    } catch (err) {
      if (err instanceof AuthError && wrongFirst.has(err.code))
        notify.event(c, { type: 'reauthentication.failed', userId: user.id, sessionId })
      throw err
    }
    const { found, first } = proven
    const done = { credentialsVersion: found.credentialsVersion, wrong: proven.wrong }
    // A proof that verified the user (a passkey with user verification) is two factors in one.
    if (proven.complete) return { ...done, amr: userVerified(first) }
    const spent = await stepUpCode.check(c, user.id, body.code)
    if (spent === 'off') return { ...done, amr: amrOf(first) }
    if (spent === 'missing') throw codeRequired()
    if (spent === 'recovery') stepUpCode.recovered(c, found.user, 'reauth')
    return { ...done, amr: amrOf(first, 'otp') }
  }

  route.guarded(
    {
      method: 'post',
      path: '/reauth',
      operationId: 'reauthenticate',
      tags: ['auth'],
      summary: 'Prove who you are again (the password or a passkey, and a code when two-factor is on): the session becomes fresh',
      description:
        'For operations that document `x-fresh`. The same session gets a new `authenticatedAt` (the new access token carries it as `auth_time`, with `amr`); the refresh cookie is left as it is.',
      request: { body: jsonBody(reauthBody(reauthProofs, stepUpCode)) },
      responses: {
        200: jsonContent(AuthResultSchema, 'The session is fresh; a new access token for it (the refresh cookie is unchanged)'),
        400: problemResponse('Invalid input, a wrong password or passkey, or a missing, wrong or used code'),
      },
    },
    { limit: { name: 'reauth', keys: [limitBy.ip, limitBy.user] }, hashes: true },
    async (c) => {
      const { user, sessionId } = c.var
      const { credentialsVersion, amr, wrong } = await proofOf(c, c.var, c.req.valid('json') as ReauthBody)
      const body = await sessions.reauthenticate(user.raw, sessionId, credentialsVersion, amr)
      // The proof was replaced while it was being checked: it is no longer the proof it was.
      if (!body) throw wrong()
      notify.event(c, { type: 'reauthenticated', userId: user.id, sessionId, amr })
      return c.json(body, 200)
    },
  )
}
