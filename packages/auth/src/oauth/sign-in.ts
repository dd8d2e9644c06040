/**
 * What a callback does with the identity a provider vouched for (docs/guide/social-sign-in.md#who-the-identity-is):
 * the identity is (issuer, subject), never the email. A known identity signs in to its account;
 * an unknown one makes a new account when its email has none, and is refused with
 * `account_exists` when it has one, unless the provider is trusted with `linkByEmail` and said the
 * address is verified. A link flow links the identity to the flow's user. Every outcome is a
 * redirect: to `returnTo`, with `?second_factor=`, `?linked=` or `?error=`.
 */
import type { Context } from 'hono'
import { isDisabled } from '../account-disabled.js'
import { accountEvents } from '../account-events.js'
import { EmailField, isStorableText } from '../fields.js'
import type { RouteDeps } from '../route-deps.js'
import type { UserRecord } from '../store/types.js'
import type { OAuthCore } from './core.js'
import { landing } from './flow.js'
import type { ResolvedProvider } from './options.js'
import type { Federated } from './relying-party.js'
import type { NewIdentity } from './store.js'

/** Every `?error=` a callback may send the browser back with. */
export type CallbackError =
  | 'access_denied'
  | 'invalid_state'
  | 'provider_error'
  | 'provider_unavailable'
  | 'account_exists'
  | 'identity_in_use'
  | 'email_required'
  | 'signup_disabled'
  | 'rate_limited'
  | 'account_disabled'

/** The callback's facts about one request: its provider and where the browser goes back to. */
export interface Landing {
  c: Context
  provider: ResolvedProvider
  returnTo: string
}

/** What is kept of the provider's word: an id that fits, a valid email or none, a name that fits. */
export const identityFacts = ({ issuer, profile }: Federated) => {
  if (!isStorableText(profile.subject) || profile.subject.length > 255 || issuer.length > 2048) return null
  const email = profile.email === null ? null : EmailField.safeParse(profile.email)
  const name = profile.name && isStorableText(profile.name) ? [...profile.name.trim()].slice(0, 100).join('') : ''
  return {
    issuer,
    subject: profile.subject,
    email: email?.success ? email.data : null,
    emailVerified: email?.success === true && profile.emailVerified,
    name,
  }
}
type Facts = NonNullable<ReturnType<typeof identityFacts>>

export const federatedSignIn = <U extends UserRecord>(
  deps: Pick<RouteDeps<U>, 'store' | 'sessions' | 'notify' | 'options' | 'devices' | 'secondStep'> & { oauth: OAuthCore },
) => {
  const { store, sessions, notify, options, devices, secondStep, oauth } = deps

  /** Back to `returnTo` with `?error=` (and `&provider=`): no session, nothing else set. */
  const refuse = ({ c, provider, returnTo }: Landing, error: CallbackError, userId?: string) => {
    notify.event(c, { type: 'login.failed', method: 'oauth', provider: provider.id, ...(userId ? { userId } : {}) })
    return c.redirect(landing(returnTo, { error, provider: provider.id }), 302)
  }

  /**
   * The one place where a sign-in through a provider ends: the second factor when the account
   * has one, else the session. A check that refuses an account's sign-in belongs here, first.
   */
  const finish = async (at: Landing, user: U, credentialsVersion: number, created: boolean) => {
    const { c, provider, returnTo } = at
    // The identity is proven: only now may the answer say that an operator disabled the account.
    if (isDisabled(user)) return refuse(at, 'account_disabled', user.id)
    // The browser keeps its device id through a second step too.
    devices.set(c)
    const second = await secondStep.due(c, user.id, credentialsVersion, 'fed')
    if (second) return c.redirect(landing(returnTo, { second_factor: second.challenge }), 302)
    // The answer is a redirect: the browser's first access token comes from its first refresh.
    const started = await sessions.open(c, user, credentialsVersion, ['fed'])
    if (!started) return refuse(at, 'provider_error', user.id)
    const opened = { userId: user.id, sessionId: started.sessionId }
    if (created) notify.event(c, { type: 'signup', ...opened })
    notify.event(c, { type: 'login.succeeded', method: 'oauth', provider: provider.id, ...opened })
    await devices.signedIn(c, user, started.sessionId, { notice: !created })
    return c.redirect(returnTo, 302)
  }

  const newIdentity = async (p: ResolvedProvider, facts: Facts, federated: Federated, userId: string): Promise<NewIdentity> => ({
    id: crypto.randomUUID(),
    userId,
    provider: p.id,
    issuer: facts.issuer,
    subject: facts.subject,
    email: facts.email,
    sealedTokens: await oauth.seal(p, federated.tokens, userId),
    createdAt: options.now(),
  })

  const linked = (c: Context, p: ResolvedProvider, user: { id: string; email: string }, identityId: string) => {
    notify.event(c, { type: 'identity.linked', userId: user.id, identityId, provider: p.id })
    notify.mail({ kind: 'identity-linked', to: user.email, provider: p.name })
  }

  /** An unknown identity whose email an account has: linked only when the provider is trusted to say so. */
  const byEmail = async (at: Landing, facts: Facts, federated: Federated) => {
    const { c, provider } = at
    const existing = facts.email === null ? null : await store.findUserByEmail(facts.email)
    if (!existing) return null
    if (!provider.linkByEmail || !facts.emailVerified) return refuse(at, 'account_exists')
    const { user } = existing
    // Proven by a trusted provider: a disabled account is refused now, before anything of it changes.
    if (isDisabled(user)) return refuse(at, 'account_disabled', user.id)
    let { credentialsVersion } = existing
    if (!user.emailVerified) {
      // The provider's proof of the mailbox is the account's first: what was set before it goes.
      const settled = await store.settleEmailSignIn({
        email: user.email,
        userId: user.id,
        newUser: null,
        revoke: accountEvents['email-sign-in-settled'],
      })
      if (!settled) return refuse(at, 'provider_error', user.id)
      credentialsVersion = settled.credentialsVersion
      if (settled.settled) notify.event(c, { type: 'email.verified', userId: user.id })
      for (const sessionId of settled.revokedSessionIds) notify.event(c, { type: 'session.revoked', userId: user.id, sessionId })
    }
    const identity = await newIdentity(provider, facts, federated, user.id)
    const outcome = await store.linkIdentity(identity)
    if (outcome === 'in_use') return refuse(at, 'identity_in_use', user.id)
    if (outcome === 'linked') linked(c, provider, user, identity.id)
    const found = await store.findUserById(user.id)
    return found ? finish(at, found.user, credentialsVersion, false) : refuse(at, 'provider_error')
  }

  return {
    refuse,

    /** A sign-in flow's callback, the provider's word checked. */
    async signIn(at: Landing, facts: Facts, federated: Federated) {
      const { provider } = at
      const known = await store.findIdentity(facts.issuer, facts.subject)
      if (known) {
        const found = await store.findUserById(known.userId)
        if (!found) return refuse(at, 'provider_error')
        // Proven: a disabled account is refused before its identity is touched.
        if (isDisabled(found.user)) return refuse(at, 'account_disabled', found.user.id)
        // Sealed anew, or cleared when the provider no longer keeps them.
        const sealedTokens = await oauth.seal(provider, federated.tokens, known.userId)
        await store.useIdentity({ id: known.id, email: facts.email, now: options.now(), sealedTokens })
        return finish(at, found.user, found.credentialsVersion, false)
      }
      if (facts.email === null) return refuse(at, 'email_required')
      const matched = await byEmail(at, facts, federated)
      if (matched) return matched
      if (!provider.signUp) return refuse(at, 'signup_disabled')
      const userId = crypto.randomUUID()
      const name = facts.name || [...(facts.email.split('@')[0] || facts.email)].slice(0, 100).join('')
      const identity = await newIdentity(provider, facts, federated, userId)
      const user = { id: userId, name, email: facts.email, emailVerified: facts.emailVerified, createdAt: options.now() }
      const outcome = await store.createFederatedUser(user, identity)
      if (outcome !== 'created') return refuse(at, outcome === 'email_taken' ? 'account_exists' : 'identity_in_use')
      const found = await store.findUserById(userId)
      return found ? finish(at, found.user, found.credentialsVersion, true) : refuse(at, 'provider_error')
    },

    /**
     * A link flow's callback: the identity joins the flow's user, unless another account has it, and
     * only while the session that started the link lives: a reset, a disable or a sign-out in the
     * ten minutes ends the link with it (docs/guide/social-sign-in.md#linking).
     */
    async link(at: Landing, facts: Facts, federated: Federated, flow: { userId: string; sessionId: string | null }) {
      const { c, provider, returnTo } = at
      const { userId } = flow
      // The session's lookup yields its user as stored now: no second read of the account.
      const started = flow.sessionId === null ? null : await store.findSession(flow.sessionId)
      if (!started || started.user.id !== userId) return refuse(at, 'invalid_state', userId)
      const identity = await newIdentity(provider, facts, federated, userId)
      const outcome = await store.linkIdentity(identity)
      if (outcome === 'in_use') return refuse(at, 'identity_in_use', userId)
      if (outcome === 'linked') linked(c, provider, started.user, identity.id)
      return c.redirect(landing(returnTo, { linked: provider.id }), 302)
    },
  }
}
