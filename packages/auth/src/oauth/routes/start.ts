/**
 * GET /oauth/{provider}: a browser navigation that starts a sign-in: a flow bound to this browser
 * by its cookie, and a 302 to the provider's authorization endpoint with `state`, PKCE S256 and
 * for OpenID Connect a `nonce`. A provider that cannot be found now sends the browser back to
 * `returnTo` with `?error=provider_unavailable`.
 */
import { z } from '@hono/zod-openapi'
import { limitBy } from '../../limits.js'
import { problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { ProviderParam, ReturnToField, redirectResponse, returnToOf, unknownProvider } from '../schemas.js'

export const startSignIn = <U extends UserRecord>({ route, oauth, options }: Pick<OAuthDeps<U>, 'route' | 'oauth' | 'options'>) =>
  route.public(
    {
      method: 'get',
      path: '/oauth/{provider}',
      operationId: 'startOAuthSignIn',
      tags: ['social sign-in'],
      summary: 'Sign in through a provider (a browser navigation)',
      request: { params: ProviderParam, query: z.object({ returnTo: ReturnToField.optional() }) },
      responses: {
        302: redirectResponse(
          'To the provider’s authorization endpoint, with the flow cookie set (HttpOnly, SameSite=Lax, Path=/auth/oauth, 10 minutes); or, when the provider cannot be reached, to `returnTo` with `?error=provider_unavailable&provider=<id>`',
        ),
        400: problemResponse('`returnTo` is neither a path beginning with one `/` nor a URL on a trusted origin'),
        404: problemResponse('No provider with this id is configured'),
      },
    },
    { limit: { name: 'oauth-start', keys: [limitBy.ip] } },
    async (c) => {
      const id = c.req.valid('param').provider
      const provider = oauth.provider(id)
      if (!provider) throw unknownProvider(id)
      const returnTo = returnToOf(c, c.req.query('returnTo'), options.trustedOrigins)
      const url = await oauth.authorize(c, provider, { returnTo, userId: null, sessionId: null })
      return c.redirect(url, 302)
    },
  )
