/**
 * Social sign-in in the browser (docs/guide/social-sign-in.md#front-ends): the providers to show,
 * the navigation that starts a sign-in or a link, and what the callback's landing URL says
 * (`second_factor`, `linked`, `error`). The callback itself signs the browser in with the refresh
 * cookie: after it, {@link AuthClient.refresh} (or any call) picks the session up.
 */
import type { AuthCore } from './core.js'
import type { components } from './generated/openapi.js'

type Schemas = components['schemas']

/** A provider as `GET /auth/oauth/providers` lists it: `{ id, name }`. */
export type OAuthProvider = Schemas['OAuthProvider']

/** An identity linked to the account, as `GET /auth/identities` lists it. */
export type LinkedIdentity = Schemas['Identity']

/** What the landing URL of a callback says; every field `null` when it says nothing of it. */
export interface OAuthLanding {
  /** A second factor is due: answer it with `verifyTwoFactor({ challenge: secondFactor, code })`. */
  secondFactor: string | null
  /** A provider was linked to the account (its id). */
  linked: string | null
  /** Why the sign-in or link was refused: `account_exists`, `invalid_state`, `provider_error`, … */
  error: string | null
  /** The provider of the refusal. */
  provider: string | null
}

const navigate = (url: string) => {
  globalThis.location.assign(url)
}

export const oauthOf = (core: Pick<AuthCore, 'call' | 'urlOf'>, authPath: string) => ({
  /** The configured providers, in order: a button each. */
  providers: (): Promise<OAuthProvider[]> => core.call('GET /oauth/providers', undefined),
  /**
   * Navigates the browser to the provider (a full page load); it comes back to `returnTo`
   * (default `/`), signed in, or with `?second_factor=` or `?error=` (see {@link landing}).
   */
  signIn(id: string, { returnTo }: { returnTo?: string } = {}): void {
    const query = returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(returnTo)}`
    navigate(core.urlOf(`${authPath}/oauth/${encodeURIComponent(id)}${query}`))
  },
  /**
   * Links a provider to the signed-in account (a recent sign-in and a verified address are
   * needed), by navigating to it; it comes back to `returnTo` with `?linked=<id>` or `?error=`.
   */
  async link(id: string, { returnTo }: { returnTo?: string } = {}): Promise<void> {
    const { url } = await core.call('POST /oauth/{provider}/link', returnTo === undefined ? {} : { returnTo }, 'session', {
      provider: id,
    })
    navigate(url)
  },
  /** The identities linked to the account. */
  identities: (): Promise<LinkedIdentity[]> => core.call('GET /identities', undefined, 'session'),
  /** Unlinks one (a recent sign-in is needed; the last way to sign in is refused with 409 `last-credential`). */
  unlink: async (identityId: string): Promise<void> => {
    await core.call('DELETE /identities/{id}', undefined, 'session', { id: identityId })
  },
  /** What the landing URL (default: the page's) says about a sign-in or link that just came back. */
  landing(url: string | URL = globalThis.location.href): OAuthLanding {
    const params = new URL(url).searchParams
    return {
      secondFactor: params.get('second_factor'),
      linked: params.get('linked'),
      error: params.get('error'),
      provider: params.get('provider'),
    }
  },
})
