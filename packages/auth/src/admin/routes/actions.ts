/**
 * The operators' other actions (docs/guide/operators.md#actions): sign out everywhere, remove the
 * second factor, mail the ordinary reset link, mark the address verified. Each is an `admin.*`
 * event naming the operator, and a mail telling the user an operator did it. None shows or sets
 * a password, token, TOTP key or recovery code.
 */
import { accountEvents } from '../../account-events.js'
import { AuthError } from '../../errors.js'
import { opaqueToken, tokenHash } from '../../opaque-token.js'
import { jsonContent, MessageSchema, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import { type Accounts, type AdminDeps, adminRoute, notFoundResponse, protectedResponse } from '../accounts.js'
import { UserIdParam } from '../schemas.js'

export const actionRoutes = <U extends UserRecord>(deps: AdminDeps<U>, accounts: Accounts<U>) => {
  const { route, store, notify, options } = deps
  const write = { ...adminRoute(deps, true), request: { params: UserIdParam } }
  const refused = { 403: problemResponse(protectedResponse), 404: notFoundResponse }

  route.guarded(
    {
      method: 'delete',
      path: '/admin/users/{id}/sessions',
      operationId: 'adminSignOutEverywhere',
      ...write,
      summary: 'Sign the account out of every session',
      responses: { 204: { description: 'Every session ended; the user is mailed' }, ...refused },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = await accounts.target(c, id)
      const revoked = await store.revokeUser(id, accountEvents['signed-out-by-operator'])
      notify.event(c, { type: 'admin.sessions_revoked', actorId: c.var.user.id, userId: id })
      for (const sessionId of revoked) notify.event(c, { type: 'session.revoked', userId: id, sessionId })
      notify.mail({ kind: 'signed-out-everywhere', to: user.email, byOperator: true })
      return c.body(null, 204)
    },
  )

  route.guarded(
    {
      method: 'delete',
      path: '/admin/users/{id}/two-factor',
      operationId: 'adminClearTwoFactor',
      ...write,
      summary: 'Remove the second factor and its recovery codes, for a user who lost both',
      responses: {
        204: { description: 'Removed; the user is mailed `two-factor-disabled`' },
        ...refused,
        409: problemResponse('The account has no second factor on (`two_factor_not_enabled`)'),
      },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user, twoFactor } = await accounts.target(c, id)
      const removed =
        twoFactor &&
        (await store.deleteTwoFactor({
          userId: id,
          keepSessionId: null,
          revoke: accountEvents['two-factor-cleared-by-operator'],
        }))
      if (!removed) throw new AuthError('two_factor_not_enabled', { detail: 'This account has no second factor on.' })
      notify.event(c, { type: 'admin.two_factor_cleared', actorId: c.var.user.id, userId: id })
      notify.mail({ kind: 'two-factor-disabled', to: user.email, byOperator: true })
      return c.body(null, 204)
    },
  )

  route.guarded(
    {
      method: 'post',
      path: '/admin/users/{id}/send-password-reset',
      operationId: 'adminSendPasswordReset',
      ...write,
      summary: 'Mail the account’s address the ordinary password reset link',
      responses: { 202: jsonContent(MessageSchema, 'The reset mail is on its way'), ...refused },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = await accounts.target(c, id)
      // The operator never sees the token: it goes to the account's own address only.
      const token = opaqueToken()
      const expiresAt = new Date(options.now().getTime() + options.resetTokenMs)
      await store.createResetToken({ userId: id, tokenHash: tokenHash(token), expiresAt })
      notify.event(c, { type: 'admin.password_reset_sent', actorId: c.var.user.id, userId: id })
      notify.mail({ kind: 'reset-password', to: user.email, token, byOperator: true })
      return c.json({ message: 'A reset link was mailed to the account’s address.' }, 202)
    },
  )

  route.guarded(
    {
      method: 'post',
      path: '/admin/users/{id}/verify-email',
      operationId: 'adminVerifyEmail',
      ...write,
      summary: 'Mark the account’s address verified',
      responses: { 204: { description: 'Verified; the user is mailed when it was not' }, ...refused },
    },
    {},
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = await accounts.target(c, id)
      if (!user.emailVerified && !(await store.markEmailVerified(id)))
        throw new AuthError('not_found', { detail: `No user with id ${id}` })
      // Every action is in the audit log, one that changed nothing too; the mail tells of a change only.
      notify.event(c, { type: 'admin.email_verified', actorId: c.var.user.id, userId: id })
      if (!user.emailVerified) notify.mail({ kind: 'email-marked-verified', to: user.email, byOperator: true })
      return c.body(null, 204)
    },
  )
}
