/**
 * A flow between a start and its callback (docs/guide/social-sign-in.md#the-flow): a random value
 * in a cookie (`HttpOnly`, `SameSite=Lax`, path `/auth/oauth`, ten minutes) binds the `state` to
 * the browser that started it; the store keeps only hashes of both, with the nonce, `returnTo`,
 * and for a link the user. The PKCE verifier is derived from the cookie's value, so it is stored
 * nowhere. A flow is claimed once, whatever the callback then finds.
 */
import type { Context } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'
import { singleCookie } from '../credentials.js'
import { isStorableText } from '../fields.js'
import { opaqueToken, tokenHash } from '../opaque-token.js'
import type { Store, UserRecord } from '../store/types.js'
import { sha256Base64url } from '../web.js'
import type { ResolvedProvider } from './options.js'
import type { OAuthFlowRecord } from './store.js'

/** How long a flow lives. */
export const FLOW_SECONDS = 10 * 60
const NAME = 'oauth_flow'

export interface FlowSecrets {
  state: string
  nonce: string | null
  codeVerifier: string
}

/** The PKCE verifier of a flow: 43 base64url characters derived from the cookie's 256 random bits. */
const verifierOf = (cookieValue: string) => sha256Base64url(`latchkey oauth pkce ${cookieValue}`)

/** The base a relative `returnTo` is resolved against: any origin no `returnTo` can name. */
const RELATIVE_BASE = 'http://relative.invalid'

/** A character no `returnTo` carries: controls, spaces (browsers strip or split on them) and backslashes. */
const unsafeInUrl = (ch: string) => (ch.codePointAt(0) ?? 0) <= 0x20 || ch === '\u007f' || ch === '\\'

/**
 * `returnTo` as given when it is a path beginning with exactly one `/`, or an absolute http(s)
 * URL on a trusted origin; `null` for anything else (no open redirect).
 */
export const safeReturnTo = (value: string, trusted: ReadonlySet<string> | null): string | null => {
  if (value.length > 2048 || !isStorableText(value) || [...value].some(unsafeInUrl)) return null
  if (value.startsWith('/')) {
    if (value.startsWith('//')) return null
    // Dot segments may make the path `//host` (`/..//evil.example`): a landing with a query added
    // (`?error=`, `?second_factor=`) is written from the resolved path and would leave the site.
    const resolved = new URL(value, RELATIVE_BASE)
    return resolved.origin === RELATIVE_BASE && !resolved.pathname.startsWith('//') ? value : null
  }
  try {
    const url = new URL(value)
    if ((url.protocol === 'https:' || url.protocol === 'http:') && trusted?.has(url.origin)) return url.href
  } catch {}
  return null
}

/** Where the callback sends the browser: `returnTo` with `params` added (none: `returnTo` unchanged). */
export const landing = (returnTo: string, params: Record<string, string> = {}): string => {
  if (Object.keys(params).length === 0) return returnTo
  const relative = returnTo.startsWith('/')
  const url = new URL(returnTo, RELATIVE_BASE)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return relative ? `${url.pathname}${url.search}${url.hash}` : url.href
}

export const flows = <U extends UserRecord>(deps: { store: Store<U>; secure: boolean; cookiePath: string; now: () => Date }) => {
  const base: CookieOptions = {
    path: `${deps.cookiePath}/oauth`,
    httpOnly: true,
    sameSite: 'Lax',
    ...(deps.secure ? { secure: true, prefix: 'secure' as const } : {}),
  }
  const name = deps.secure ? `__Secure-${NAME}` : NAME
  return {
    /** Stores a new flow and sets its cookie: the secrets for the authorization URL. */
    async start(
      c: Context,
      provider: ResolvedProvider,
      { returnTo, userId, sessionId }: { returnTo: string; userId: string | null; sessionId: string | null },
    ) {
      const value = opaqueToken()
      const secrets: FlowSecrets = {
        state: opaqueToken(),
        nonce: provider.protocol === 'oidc' ? opaqueToken() : null,
        codeVerifier: verifierOf(value),
      }
      const now = deps.now()
      await deps.store.createOAuthFlow(
        {
          hash: tokenHash(value),
          provider: provider.id,
          stateHash: tokenHash(secrets.state),
          nonce: secrets.nonce,
          returnTo,
          userId,
          sessionId,
          expiresAt: new Date(now.getTime() + FLOW_SECONDS * 1000),
        },
        now,
      )
      setCookie(c, NAME, value, { ...base, maxAge: FLOW_SECONDS })
      return secrets
    },

    /**
     * Claims the flow of this browser's cookie (spent whatever follows) and clears the cookie: the
     * flow and its secrets, or `null` when there is no cookie (or several) or no live flow.
     */
    async claim(c: Context): Promise<{ flow: OAuthFlowRecord; codeVerifier: string } | null> {
      const value = singleCookie(c, name)
      if (typeof value !== 'string' || value.length > 100) return null
      deleteCookie(c, NAME, base)
      const flow = await deps.store.claimOAuthFlow(tokenHash(value), deps.now())
      return flow && { flow, codeVerifier: verifierOf(value) }
    },
  }
}

export type Flows = ReturnType<typeof flows>
