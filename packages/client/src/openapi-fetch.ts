/**
 * A middleware for `openapi-fetch`: a client typed from the server's `/openapi.json` gets the
 * access token on every request to the auth client's origin (`baseUrl`), and one refresh and retry after a 401 `invalid_token`.
 *
 * @example
 * const api = createClient<paths>({ baseUrl })
 * api.use(authMiddleware(auth))
 */
import type { AuthClient } from './client.js'

/** The shape of an openapi-fetch middleware (structural: no dependency on openapi-fetch). */
export interface FetchMiddleware {
  onRequest(options: { request: Request }): Promise<Request>
  onResponse(options: { request: Request; response: Response; options?: { readonly fetch?: typeof fetch } }): Promise<Response>
}

/**
 * `fetchImpl` sends the one retry; by default the openapi-fetch client's own `fetch` (its
 * `createClient({ fetch })`), else the global one.
 */
export const authMiddleware = (auth: AuthClient, fetchImpl?: typeof fetch): FetchMiddleware => {
  // A copy of each request before it is sent, for the one retry: a sent request's body is spent.
  const copies = new WeakMap<Request, { copy: Request; token: string | null }>()
  return {
    async onRequest({ request }) {
      // The token goes to the auth client's own origin only, never to another API this
      // openapi-fetch client may be pointed at.
      if (new URL(request.url).origin !== auth.origin) return request
      const token = await auth.getAccessToken()
      if (token) request.headers.set('Authorization', `Bearer ${token}`)
      copies.set(request, { copy: request.clone(), token })
      return request
    },
    async onResponse({ request, response, options }) {
      const sent = copies.get(request)
      if (!sent || response.status !== 401 || !/invalid_token/.test(response.headers.get('www-authenticate') ?? ''))
        return response
      const current = await auth.getAccessToken()
      const token =
        current !== null && current !== sent.token ? current : (await auth.refresh()) ? await auth.getAccessToken() : null
      if (!token) return response
      const retry = sent.copy
      retry.headers.set('Authorization', `Bearer ${token}`)
      return (fetchImpl ?? options?.fetch ?? globalThis.fetch)(retry)
    },
  }
}
