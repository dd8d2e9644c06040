/**
 * The two halves of a social sign-in as a test drives them by hand, without a provider's pages:
 * the start (its authorization URL's `state`, `nonce` and PKCE challenge, and the flow cookie),
 * and a callback with whatever parameters the test chooses, in the browser of that cookie.
 */
import { expect } from 'vitest'
import type { harness } from './harness.js'

type H = ReturnType<typeof harness>

export interface Started {
  authorize: URL
  state: string
  nonce: string
  /** The `Cookie` header of the browser that started. */
  cookie: string
  setCookie: string
}

export const begin = async (h: H, provider: string, returnTo = '/back'): Promise<Started> => {
  const res = await h.request('GET', `/auth/oauth/${provider}?returnTo=${encodeURIComponent(returnTo)}`)
  expect(res.status).toBe(302)
  const authorize = new URL(res.headers.get('location') ?? '')
  const setCookie = res.headers.getSetCookie().find((line) => line.startsWith('oauth_flow=')) ?? ''
  return {
    authorize,
    state: authorize.searchParams.get('state') ?? '',
    nonce: authorize.searchParams.get('nonce') ?? '',
    cookie: setCookie.split(';')[0] ?? '',
    setCookie,
  }
}

/** The callback with the query `query` (raw, as the provider would send it), in the browser of `cookie`. */
export const callback = (h: H, provider: string, query: string, cookie = '') =>
  h.request('GET', `/auth/oauth/${provider}/callback?${query}`, cookie ? { headers: { Cookie: cookie } } : {})

/** The callback's `Location`, checked to be a redirect. */
export const landed = async (res: Response) => {
  expect(res.status).toBe(302)
  return res.headers.get('location') ?? ''
}
