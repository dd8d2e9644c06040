/**
 * GET /oauth/{provider}/callback: where the provider sends the browser back. It always answers
 * 302 to the flow's `returnTo` (`/` when no live flow matches) and never puts a token in the URL.
 * In order: the limit per IP, the flow of this browser's cookie (claimed once, whatever follows),
 * the provider of the path, exactly one `state` equal to the flow's, then the provider's word
 * (`relying-party.ts`), then the account (`sign-in.ts`).
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { AuthError } from '../../errors.js'
import { limitBy } from '../../limits.js'
import { tokenHash } from '../../opaque-token.js'
import { problemResponse } from '../../openapi.js'
import type { UserRecord } from '../../store/types.js'
import type { OAuthDeps } from '../deps.js'
import { FederationFailed } from '../relying-party.js'
import { ProviderParam, redirectResponse, unknownProvider } from '../schemas.js'
import { federatedSignIn, identityFacts } from '../sign-in.js'

/**
 * A parameter as the provider sends it, once, or repeated: a repeated one reaches the schema as an
 * array (docs/reference/conventions.md#repeated-query-parameters), and the callback never answers
 * 400. It reads the URL itself (exactly one `state`, else `invalid_state`) and always redirects.
 */
const sent = z.union([z.string(), z.array(z.string())]).optional()

const CallbackQuery = z.object({ code: sent, state: sent, iss: sent, error: sent })

export const oauthCallback = <U extends UserRecord>(deps: OAuthDeps<U>) => {
  const { route, oauth, options, limits } = deps
  const outcome = federatedSignIn(deps)
  const count = limits.ownRules('oauth-callback', [
    {
      kind: 'ip',
      limit: options.ipLimit,
      valueOf: (c: Context) => limitBy.ip.valueOf({ c, peek: {}, userId: null, subject: null }, options),
    },
  ])
  route.public(
    {
      method: 'get',
      path: '/oauth/{provider}/callback',
      operationId: 'oauthCallback',
      tags: ['social sign-in'],
      summary: 'The provider’s redirect back (a browser navigation)',
      description:
        'Always a 302 to the flow’s `returnTo` (`/` when no live flow of this browser matches), never with a token in the URL. Signed in: `returnTo` unchanged, the refresh and device cookies set (get an access token from POST /auth/refresh). A second factor due: `?second_factor=<challenge>` for POST /auth/two-factor/verify. A link: `?linked=<provider>`. Refused: `?error=<code>&provider=<id>`, code one of `access_denied`, `invalid_state`, `provider_error`, `provider_unavailable`, `account_exists`, `identity_in_use`, `email_required`, `signup_disabled`, `rate_limited`.',
      request: { params: ProviderParam, query: CallbackQuery },
      responses: {
        302: redirectResponse('To `returnTo`, as described; the flow cookie cleared'),
        400: problemResponse('The provider id is not valid'),
        404: problemResponse('No provider with this id is configured'),
      },
    },
    {},
    async (c) => {
      // The URL carries the provider's code: the page it lands on is never told it.
      c.header('Referrer-Policy', 'no-referrer')
      const id = c.req.valid('param').provider
      const provider = oauth.provider(id)
      if (!provider) throw unknownProvider(id)
      let limited = false
      try {
        await count(c)
      } catch (err) {
        if (!(err instanceof AuthError) || err.code !== 'rate_limited') throw err
        limited = true
      }
      const claimed = await oauth.flows.claim(c)
      const at = { c, provider, returnTo: claimed?.flow.returnTo ?? '/' }
      if (limited) return outcome.refuse(at, 'rate_limited')
      const states = c.req.queries('state') ?? []
      const [state] = states
      if (!claimed || claimed.flow.provider !== provider.id || states.length !== 1 || state === undefined)
        return outcome.refuse(at, 'invalid_state')
      if (tokenHash(state) !== claimed.flow.stateHash) return outcome.refuse(at, 'invalid_state')
      const { flow, codeVerifier } = claimed
      let federated: Awaited<ReturnType<typeof oauth.rp.finish>>
      try {
        federated = await oauth.rp.finish(provider, new URL(c.req.url).searchParams, {
          state,
          nonce: flow.nonce,
          codeVerifier,
        })
      } catch (err) {
        if (err instanceof FederationFailed) return outcome.refuse(at, err.error, flow.userId ?? undefined)
        throw err
      }
      const facts = identityFacts(federated)
      if (!facts) return outcome.refuse(at, 'provider_error')
      return flow.userId
        ? outcome.link(at, facts, federated, { userId: flow.userId, sessionId: flow.sessionId })
        : outcome.signIn(at, facts, federated)
    },
  )
}
