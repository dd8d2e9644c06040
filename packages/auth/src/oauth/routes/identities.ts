/**
 * GET /identities and DELETE /identities/{id}: the signed-in user's identities at providers, and
 * unlinking one (a fresh session and a verified address; never the last way to sign in: 409).
 */
import { z } from '@hono/zod-openapi'
import { AuthError } from '../../errors.js'
import { limitBy } from '../../limits.js'
import { jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { IdentitySchema } from '../schemas.js'

const IdentityIdParam = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' } }),
})

export const identityRoutes = <U extends UserRecord>({ route, store, oauth, notify, options }: OAuthDeps<U>) => {
  route.guarded(
    {
      method: 'get',
      path: '/identities',
      operationId: 'listIdentities',
      tags: ['social sign-in'],
      summary: 'Your identities at providers',
      responses: { 200: jsonContent(z.array(IdentitySchema).max(1000), 'Oldest first') },
    },
    {},
    async (c) => {
      const listed = await store.listIdentities(c.var.user.id)
      return c.json(
        listed.map(({ id, provider, email, createdAt, lastUsedAt }) => ({
          id,
          provider,
          email,
          createdAt: createdAt.toISOString(),
          lastUsedAt: lastUsedAt?.toISOString() ?? null,
        })),
        200,
      )
    },
  )

  route.guarded(
    {
      fresh: options.freshAge,
      verifiedEmail: true,
      method: 'delete',
      path: '/identities/{id}',
      operationId: 'unlinkIdentity',
      tags: ['social sign-in'],
      summary: 'Unlink an identity',
      request: { params: IdentityIdParam },
      responses: {
        204: { description: 'Unlinked; a notice is mailed' },
        400: problemResponse('Invalid input'),
        403: problemResponse('The email address is not verified (`email-unverified`)'),
        404: problemResponse('No identity of yours with this id'),
        409: problemResponse('It is the last way to sign in (`last-credential`: no password, no passkey, no other identity)'),
      },
    },
    { limit: { name: 'identity-unlink', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const { id } = c.req.valid('param')
      const { user } = c.var
      const identity = (await store.listIdentities(user.id)).find((listed) => listed.id === id)
      const outcome = identity ? await store.deleteIdentity(user.id, id) : 'not_found'
      if (outcome === 'not_found' || !identity) throw new AuthError('not_found', { detail: 'You have no identity with this id.' })
      if (outcome === 'last_sign_in')
        throw new AuthError('last_credential', {
          detail: 'This identity is the last way to sign in to the account; add a password, a passkey or another provider first.',
        })
      notify.event(c, { type: 'identity.unlinked', userId: user.id, identityId: id, provider: identity.provider })
      notify.mail({
        kind: 'identity-unlinked',
        to: user.email,
        provider: oauth.provider(identity.provider)?.name ?? identity.provider,
      })
      return c.body(null, 204)
    },
  )
}
