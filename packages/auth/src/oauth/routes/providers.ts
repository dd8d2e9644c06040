/**
 * GET /oauth/providers: the configured providers, in configuration order, for the sign-in
 * buttons. Nothing secret. Mounted also without providers (an empty list), so a front end asks
 * without meeting a 404.
 */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { ProviderSchema } from '../schemas.js'

export const listProviders = <U extends UserRecord>({ route, options }: Pick<RouteDeps<U>, 'route' | 'options'>) =>
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
        options.providers.map(({ id, name }) => ({ id, name })),
        200,
      ),
  )
