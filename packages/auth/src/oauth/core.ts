/**
 * Social sign-in's core, made once by `createAuth` when `providers` is set: the providers by id,
 * the relying party, the flows, and the provider's tokens, sealed under the encryption keys when
 * a provider keeps them (docs/guide/social-sign-in.md#the-providers-tokens).
 */
import type { Context } from 'hono'
import type { SecretBox } from '../secret-box.js'
import type { Store, UserRecord } from '../store/types.js'
import { flows, landing } from './flow.js'
import type { ResolvedProvider } from './options.js'
import { type Federated, FederationFailed, relyingParty } from './relying-party.js'

/** The provider's tokens as `auth.providerTokens` answers them. Never logged, never in a response. */
export interface ProviderTokens {
  accessToken: string
  refreshToken: string | null
  expiresAt: Date | null
  scope: string | null
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export const oauthCore = <U extends UserRecord>(deps: {
  store: Store<U>
  providers: ResolvedProvider[]
  box: SecretBox
  secure: boolean
  cookiePath: string
  now: () => Date
  log: (message: string) => void
}) => {
  const byId = new Map(deps.providers.map((p) => [p.id, p]))
  const rp = relyingParty({ now: deps.now, log: deps.log })
  const flow = flows({ store: deps.store, secure: deps.secure, cookiePath: deps.cookiePath, now: deps.now })
  return {
    providers: deps.providers,
    provider: (id: string) => byId.get(id) ?? null,
    rp,
    flows: flow,

    /**
     * Where a start (or a link) sends the browser: the provider's authorization URL, with a new flow
     * bound to this browser; or, when the provider cannot be found now, `returnTo` with the error
     * (no flow, no cookie).
     */
    async authorize(
      c: Context,
      p: ResolvedProvider,
      target: { returnTo: string; userId: string | null; sessionId: string | null },
    ): Promise<string> {
      try {
        await rp.metadata(p)
        return (await rp.authorizationUrl(p, await flow.start(c, p, target))).href
      } catch (err) {
        if (!(err instanceof FederationFailed)) throw err
        return landing(target.returnTo, { error: err.error, provider: p.id })
      }
    },

    /** The tokens to store with the identity: sealed for `userId` when the provider keeps them, else `null`. */
    async seal(p: ResolvedProvider, tokens: Federated['tokens'], userId: string): Promise<string | null> {
      if (!p.keepTokens) return null
      const plain = JSON.stringify({ ...tokens, expiresAt: tokens.expiresAt?.toISOString() ?? null })
      return deps.box.seal(encoder.encode(plain), userId)
    },

    /** The kept tokens of the user's identity at `providerId`, or `null` (none kept, or none open). */
    async tokens(userId: string, providerId: string): Promise<ProviderTokens | null> {
      const sealed = await deps.store.findIdentityTokens(userId, providerId)
      const opened = sealed && (await deps.box.open(sealed, userId))
      if (!opened) return null
      const kept = JSON.parse(decoder.decode(opened.plain)) as Omit<ProviderTokens, 'expiresAt'> & { expiresAt: string | null }
      return { ...kept, expiresAt: kept.expiresAt ? new Date(kept.expiresAt) : null }
    },
  }
}

export type OAuthCore = ReturnType<typeof oauthCore>
