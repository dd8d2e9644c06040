/** GET /oauth/providers: the configured providers, in configuration order, for the sign-in buttons. Nothing secret. */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { ProviderSchema } from '../schemas.js'

export const listProviders = <U extends UserRecord>({ route, oauth }: Pick<OAuthDeps<U>, 'route' | 'oauth'>) =>
  route.public(
    {
      method: 'get',
      path: '/oauth/providers',
      operationId: 'listOAuthProviders',
      tags: ['social sign-in'],
      summary: 'The providers a user can sign in with',
      responses: { 200: jsonContent(z.array(ProviderSchema).max(64), 'Each provider’s id and name, in configuration order') },
    },
    {},
    (c) =>
      c.json(
        oauth.providers.map(({ id, name }) => ({ id, name })),
        200,
      ),
  )
