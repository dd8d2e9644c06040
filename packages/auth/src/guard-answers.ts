/**
 * What a guard adds to an operation's OpenAPI document, the same for the library's routes
 * (`route-builder.ts`) and an application's (`route.ts`): the security requirement (the access
 * token's three places, in the guard's order), the 401, the 403 of a policy, a scope or a
 * cross-site cookie, and `x-policy` and `x-fresh`.
 */
import type { RouteConfig } from '@hono/zod-openapi'
import { problemResponse, unauthorizedResponse } from './openapi.js'

/** Name of the HTTP bearer security scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearerAuth'
/** Name of the API keys' bearer scheme (docs/guide/api-keys.md); an operation lists the scope it needs. */
export const API_KEY_SCHEME = 'apiKey'

/**
 * Where a guarded operation reads the access token, as alternatives in the order the guard
 * looks (docs/reference/credentials.md#where-the-access-token-is-read): the bearer header, then the
 * `token` cookie an app may set, then the `access_token` query parameter.
 */
export const ACCESS_TOKEN_SECURITY: NonNullable<RouteConfig['security']> = [
  { [BEARER_SCHEME]: [] },
  { tokenCookie: [] },
  { accessTokenQuery: [] },
]

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Which API keys an operation takes, as its document says: those holding its scope; none because
 * it needs a session (`session`) or declares no scope (`scopeless`); any live one (`any`); or
 * nothing is said (`none`: API keys are off).
 */
export type KeysDocumented = { scope: string } | 'session' | 'scopeless' | 'any' | 'none'

/**
 * What a guard adds to an operation's document: `x-policy`, `x-fresh`, the bearer requirement,
 * the 401, and the 403 of a policy or of a cookie sent from another site on an unsafe method,
 * joined with the operation's own 403 (`forbidden`), if any.
 */
export const guardAnswers = (
  {
    auth,
    fresh,
    method,
    security,
    keys = 'none',
  }: {
    auth: true | string
    fresh?: number | undefined
    method: string
    security?: RouteConfig['security']
    /** Documented only where API keys are on. */
    keys?: KeysDocumented
  },
  forbidden?: string,
): {
  extensions: Record<string, unknown>
  security: NonNullable<RouteConfig['security']>
  responses: RouteConfig['responses']
} => {
  // An app may send the access token as the `token` cookie: on an unsafe method, from another
  // site, that is 403 (docs/reference/credentials.md#cross-site-requests), as is a policy's refusal.
  const scope = typeof keys === 'object' && fresh === undefined ? keys.scope : undefined
  const refusals = [
    ...(auth === true ? [] : [`the "${auth}" policy refused the caller`]),
    ...(scope !== undefined ? [`an API key without the "${scope}" scope (\`insufficient-scope\`)`] : []),
    ...(keys === 'session' || (keys !== 'none' && keys !== 'any' && fresh !== undefined)
      ? ['an API key: this needs a signed-in session (`session-required`)']
      : keys === 'scopeless'
        ? ['an API key: this route takes none (`insufficient-scope`)']
        : []),
    ...(UNSAFE.has(method.toUpperCase()) ? ['the `token` cookie was sent from another site'] : []),
    ...(forbidden ? [forbidden.charAt(0).toLowerCase() + forbidden.slice(1)] : []),
  ]
  return {
    extensions: { ...(auth === true ? {} : { 'x-policy': auth }), ...(fresh === undefined ? {} : { 'x-fresh': fresh }) },
    security: [
      ...(security ?? []),
      ...ACCESS_TOKEN_SECURITY,
      ...(scope !== undefined ? [{ [API_KEY_SCHEME]: [scope] }] : keys === 'any' ? [{ [API_KEY_SCHEME]: [] }] : []),
    ],
    responses: {
      401: unauthorizedResponse(
        fresh === undefined
          ? 'No valid access token'
          : `No valid access token, or (\`reauthentication-required\`, with \`maxAge\`) a session that last proved its holder more than ${fresh} seconds ago`,
      ),
      ...(refusals.length > 0 ? { 403: problemResponse(`Forbidden: ${refusals.join('; or ')}`) } : {}),
    },
  }
}
