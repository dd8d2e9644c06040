/**
 * POST /oauth/{provider}/link: starts linking a provider to the signed-in account, from a fresh
 * session and a verified address (a linked identity outlives a password reset). The answer is the
 * authorization URL and the flow cookie, the flow bound to this user and this browser; the
 * callback then links and lands on `returnTo?linked=<provider>`.
 */
import { z } from '@hono/zod-openapi'
import { limitBy } from '../../limits.js'
import { jsonBody, jsonContent, problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { ProviderParam, ReturnToField, returnToOf, unknownProvider } from '../schemas.js'

const LinkBody = z.object({ returnTo: ReturnToField.optional() }).openapi('OAuthLinkRequest')
const LinkResult = z
  .object({
    url: z.string().max(8192).openapi({
      description:
        'Navigate the browser here: the provider’s authorization URL (or, when the provider cannot be reached, `returnTo` with `?error=provider_unavailable`)',
    }),
  })
  .openapi('OAuthLinkResult')

export const linkProvider = <U extends UserRecord>({
  route,
  oauth,
  options,
}: Pick<OAuthDeps<U>, 'route' | 'oauth' | 'options'>) =>
  route.guarded(
    {
      fresh: options.freshAge,
      verifiedEmail: true,
      method: 'post',
      path: '/oauth/{provider}/link',
      operationId: 'linkOAuthProvider',
      tags: ['social sign-in'],
      summary: 'Start linking a provider to your account',
      request: { params: ProviderParam, body: jsonBody(LinkBody) },
      responses: {
        200: {
          ...jsonContent(LinkResult, 'The URL to navigate to; the flow cookie is set'),
          headers: z.object({
            'Set-Cookie': z
              .string()
              .max(1024)
              .openapi({ description: 'The flow cookie (HttpOnly, SameSite=Lax, Path=/auth/oauth, 10 minutes)' }),
          }),
        },
        400: problemResponse('Invalid input, or a `returnTo` that is neither a path nor a URL on a trusted origin'),
        403: problemResponse('The email address is not verified (`email-unverified`)'),
        404: problemResponse('No provider with this id is configured'),
      },
    },
    { limit: { name: 'oauth-link', keys: [limitBy.ip, limitBy.user] } },
    async (c) => {
      const id = c.req.valid('param').provider
      const provider = oauth.provider(id)
      if (!provider) throw unknownProvider(id)
      const returnTo = returnToOf(c, c.req.valid('json').returnTo, options.trustedOrigins)
      return c.json(
        { url: await oauth.authorize(c, provider, { returnTo, userId: c.var.user.id, sessionId: c.var.sessionId }) },
        200,
      )
    },
  )
