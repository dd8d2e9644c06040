/**
 * Social sign-in in the front end (docs/guide/social-sign-in.md#front-ends): a button per
 * configured provider on the sign-in screen, what the landing URL says after a provider sent the
 * browser back (a second factor to finish, a refusal in words, a link made), and the account's
 * sign-in methods: the linked identities, a Link button per other provider, Unlink.
 */
import type { AuthClient, LinkedIdentity, OAuthLanding, OAuthProvider } from '@latchkey/client'
import { announce, describeError, h } from './dom.js'

/** A sign-in through a provider is under way in this tab: back without a refusal, the callback signed it in. */
const PROVIDER_SIGN_IN = 'latchkey:provider-sign-in'

let listed: Promise<OAuthProvider[]> | null = null
/** The providers, asked once per page; none when the server has no provider (or cannot say). */
const providers = (auth: AuthClient) => {
  listed ??= auth.oauth.providers().catch(() => [])
  return listed
}
const nameOf = (all: OAuthProvider[], id: string | null) => all.find((p) => p.id === id)?.name ?? id ?? 'The provider'

/** A refusal from the callback, in words. */
export const refusalText = (error: string, provider: string): string => {
  switch (error) {
    case 'account_exists':
      return `An account with your ${provider} email address already exists. Sign in with your password (or another way you use), then link ${provider} on the Account screen.`
    case 'access_denied':
      return `Signing in with ${provider} was cancelled.`
    case 'invalid_state':
      return `That sign-in with ${provider} expired or was started in another browser. Please try again.`
    case 'identity_in_use':
      return `That ${provider} account is already linked to another account here.`
    case 'email_required':
      return `${provider} did not share a verified email address, which an account here needs.`
    case 'signup_disabled':
      return `No account here is linked to that ${provider} account.`
    case 'provider_unavailable':
      return `${provider} cannot be reached right now. Please try again later.`
    case 'rate_limited':
      return 'Too many sign-in attempts from here. Please wait a few minutes.'
    case 'account_disabled':
      return 'This account has been disabled. Contact the service to have it enabled again.'
    default:
      return `${provider} did not confirm who you are. Please try again.`
  }
}

/**
 * What the page's URL says after a provider sent the browser back, read once and removed from
 * the address bar (so a reload does not show it again); `signedIn` when a sign-in started here
 * came back with nothing to say (the callback set the refresh cookie); `null` when it says nothing.
 */
export const takeLanding = async (
  auth: AuthClient,
): Promise<(OAuthLanding & { providerName: string; signedIn: boolean }) | null> => {
  const landing = auth.oauth.landing()
  const started = sessionStorage.getItem(PROVIDER_SIGN_IN) !== null
  sessionStorage.removeItem(PROVIDER_SIGN_IN)
  if (!landing.error && !landing.secondFactor && !landing.linked)
    return started ? { ...landing, providerName: '', signedIn: true } : null
  const url = new URL(location.href)
  for (const key of ['error', 'provider', 'second_factor', 'linked']) url.searchParams.delete(key)
  history.replaceState(null, '', url.href)
  return { ...landing, providerName: nameOf(await providers(auth), landing.provider ?? landing.linked), signedIn: false }
}

/** The sign-in screen's provider buttons (none when the server has no provider). */
export const providerButtons = (auth: AuthClient) => {
  const box = h('div', { class: 'providers', role: 'group', 'aria-label': 'Sign in with a provider' })
  void providers(auth).then((all) => {
    for (const provider of all) {
      const button = h('button', { type: 'button', class: 'secondary' }, `Sign in with ${provider.name}`)
      button.addEventListener('click', () => {
        sessionStorage.setItem(PROVIDER_SIGN_IN, '1')
        auth.oauth.signIn(provider.id, { returnTo: '/' })
      })
      box.append(button)
    }
  })
  return box
}

/** The account screen's "Sign-in methods": linked identities (Unlink), and a Link button per other provider. */
export const identitiesSection = (auth: AuthClient, section: (title: string, ...content: (Node | string)[]) => HTMLElement) => {
  const list = h('ul', { class: 'sessions', 'aria-label': 'Linked providers' })
  const links = h('div', { class: 'providers' })
  const status = h('p', { class: 'error', role: 'alert' })
  const region = section('Sign-in methods', list, links, status)
  region.hidden = true
  const load = async () => {
    const all = await providers(auth)
    if (all.length === 0) return
    region.hidden = false
    const mine: LinkedIdentity[] = await auth.oauth.identities()
    list.replaceChildren(
      ...mine.map((identity) => {
        const name = nameOf(all, identity.provider)
        const unlink = h('button', { type: 'button', class: 'link', 'aria-label': `Unlink ${name}` }, 'Unlink')
        unlink.addEventListener('click', async () => {
          status.textContent = ''
          try {
            await auth.oauth.unlink(identity.id)
            announce(`${name} is unlinked.`)
            await load()
          } catch (err) {
            status.textContent = describeError(err)
          }
        })
        const detail = identity.email ? `${identity.email} · ` : ''
        return h(
          'li',
          {},
          h('div', { class: 'session' }, h('span', { class: 'device' }, name), h('small', {}, `${detail}linked`)),
          unlink,
        )
      }),
    )
    links.replaceChildren(
      ...all
        .filter((provider) => !mine.some((identity) => identity.provider === provider.id))
        .map((provider) => {
          const link = h('button', { type: 'button', class: 'secondary' }, `Link ${provider.name}`)
          link.addEventListener('click', async () => {
            status.textContent = ''
            try {
              await auth.oauth.link(provider.id, { returnTo: '/#/account' })
            } catch (err) {
              status.textContent = describeError(err)
            }
          })
          return link
        }),
    )
  }
  void load().catch((err: unknown) => {
    status.textContent = describeError(err)
  })
  return region
}
