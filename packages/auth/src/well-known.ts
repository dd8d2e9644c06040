/**
 * `GET /.well-known/jwks.json`: the public halves of `signingKeys` (RFC 7517 key set), so other
 * services can verify access tokens (`@latchkey/verify`). Every listed key is published, the
 * ones that do not sign yet included, so a key is known before its first token. Without
 * `signingKeys` the set is empty: an HS256 secret is never published.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { problemErrorHandler } from './errors.js'
import { MAX_KID_LENGTH, MAX_SIGNING_KEYS, type PublicJwk } from './signing-keys.js'

/** Seconds a key set may be cached; a verifier meeting an unknown `kid` fetches again anyway. */
export const JWKS_MAX_AGE = 300

const PublicJwkSchema = z
  .object({
    kty: z.enum(['OKP', 'EC']),
    crv: z.enum(['Ed25519', 'P-256']),
    kid: z.string().min(1).max(MAX_KID_LENGTH),
    alg: z.enum(['EdDSA', 'ES256']),
    use: z.literal('sig'),
    x: z.string().length(43).openapi({ description: 'The public key (base64url of 32 bytes); P-256 keys add `y`' }),
    y: z.string().length(43).optional(),
  })
  .openapi('PublicJwk')

const JwksSchema = z.object({ keys: z.array(PublicJwkSchema).max(MAX_SIGNING_KEYS) }).openapi('JsonWebKeySet')

export const wellKnownRoutes = (publicKeys: readonly PublicJwk[], log: (message: string) => void): OpenAPIHono => {
  const routes = new OpenAPIHono()
  routes.onError(problemErrorHandler(log))
  const body = { keys: publicKeys.map((key) => ({ ...key })) }
  routes.openapi(
    createRoute({
      method: 'get',
      path: '/.well-known/jwks.json',
      operationId: 'getJwks',
      security: [],
      tags: ['auth'],
      summary: 'The public keys that verify access tokens',
      description:
        'A JSON Web Key Set (RFC 7517) of the EdDSA or ES256 keys that sign access tokens, for other services to verify them (`@latchkey/verify`). ' +
        'A key is published before it first signs. Empty when the server signs with HS256, whose secret is never published. ' +
        `Cacheable for ${JWKS_MAX_AGE} seconds; a verifier that meets an unknown \`kid\` fetches the set again.`,
      responses: {
        200: {
          description: 'The key set',
          headers: z.object({ 'Cache-Control': z.literal(`public, max-age=${JWKS_MAX_AGE}`) }),
          content: { 'application/json': { schema: JwksSchema } },
        },
      },
    }),
    (c) => c.json(body, 200, { 'Cache-Control': `public, max-age=${JWKS_MAX_AGE}` }),
  )
  return routes
}
