/**
 * Social sign-in over HTTP against a real OpenID Connect provider (`oidc-provider`, started in
 * process, PKCE required), on both stores and with both of its ID token settings (by default the
 * email claims are only in userinfo): sign-up, sign-in by a known identity whatever email it now
 * reports, `account_exists` and `linkByEmail`, the second factor, linking and unlinking, and the
 * flow's binding to the browser.
 */
import { decodeJwt } from 'jose'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { browser, CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from '../../test/oidc-provider.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { withTwoFactor } from '../../test/two-factor.js'
import { accountEvents } from '../account-events.js'

const APP = 'http://app.test'
const REDIRECT = `${APP}/auth/oauth/oidc/callback`
type H = ReturnType<typeof harness>

describe.each([true, false])('social sign-in with oidc-provider (conformIdTokenClaims: %s)', (conformIdTokenClaims) => {
  let idp: TestProvider
  beforeAll(async () => {
    idp = await startProvider({ redirectUri: REDIRECT, conformIdTokenClaims })
  })
  afterAll(async () => {
    await idp.close()
  })

  describe.each(STORES)('on $name', ({ skip, open }) => {
    let opened: OpenedStore
    beforeEach(async () => {
      if (!skip) opened = await open()
    })
    afterEach(async () => {
      await opened?.close()
    })
    const run = it.skipIf(skip !== null)
    const setup = (linkByEmail = false, more: Parameters<typeof harness>[0] = {}) =>
      harness({
        store: opened.store,
        providers: [
          { id: 'oidc', name: 'Test OIDC', issuer: idp.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, linkByEmail },
        ],
        ...more,
      })
    /** Walks start → provider → callback in a fresh browser; the callback's answer and where it sends the browser. */
    const signIn = async (h: H, returnTo = '/account', b = browser(h.app, APP)) => {
      const { res, location } = await b.walk(`/auth/oauth/oidc?returnTo=${encodeURIComponent(returnTo)}`)
      return { res, location: location ?? '', browser: b }
    }
    /** Starts a link as the holder of `bearer` and walks its URL in a browser with the flow cookie (or a stranger's without). */
    const link = async (h: H, bearer: Record<string, string>, { stranger = false, returnTo = '' } = {}) => {
      const res = await h.request('POST', '/auth/oauth/oidc/link', { json: returnTo ? { returnTo } : {}, headers: bearer })
      expect(res.status).toBe(200)
      const b = browser(h.app, APP)
      const flow = res.headers.getSetCookie().find((line) => line.startsWith('oauth_flow=')) ?? ''
      if (!stranger) b.cookies.set('oauth_flow', (flow.split(';')[0] ?? '').slice('oauth_flow='.length))
      return (await b.walk(((await res.json()) as { url: string }).url)).location
    }
    const accessToken = async (h: H, b: ReturnType<typeof browser>) => {
      const res = await h.request('POST', '/auth/refresh', { headers: { Cookie: b.cookies.header() } })
      expect(res.status).toBe(200)
      return ((await res.json()) as { accessToken: string }).accessToken
    }

    run('a new identity makes an account, signs in with the refresh cookie, and never puts a token in the URL', async () => {
      const h = setup()
      idp.as(`new-${crypto.randomUUID()}`, { email: 'Grace@Example.com', email_verified: true, name: 'Grace Hopper' })
      const { res, location, browser: b } = await signIn(h)
      expect(res.status).toBe(302)
      expect(location).toBe('/account')
      expect(refreshCookie(res)).toBeTruthy()
      expect(res.headers.getSetCookie().some((line) => /^device=/.test(line))).toBe(true)
      const token = await accessToken(h, b)
      expect(decodeJwt(token).amr).toEqual(['fed'])
      const me = await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${token}` } })
      expect(await me.json()).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' })
      const found = await opened.store.findUserByEmail('grace@example.com')
      expect(found?.user.emailVerified).toBe(true)
      expect(found?.passwordHash ?? '').toBe('')
      await h.auth.settled()
      expect(h.events.map((e) => e.type)).toEqual(expect.arrayContaining(['signup', 'login.succeeded']))
      expect(h.events.find((e) => e.type === 'login.succeeded')).toMatchObject({ method: 'oauth', provider: 'oidc' })
      // Nothing of the provider's tokens is kept by default.
      expect((await opened.rows('auth_identities'))[0]).toMatchObject({ sealed_tokens: null })
    })

    run('a known identity signs in to its account whatever email the provider now reports', async () => {
      const h = setup()
      const sub = `known-${crypto.randomUUID()}`
      idp.as(sub, { email: 'lin@example.com', email_verified: true, name: 'Lin' })
      await signIn(h)
      idp.as(sub, { email: 'someone-else@example.com', email_verified: true, name: 'Lin' })
      const { location, browser: b } = await signIn(h)
      expect(location).toBe('/account')
      const me = await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${await accessToken(h, b)}` } })
      const lin = (await me.json()) as { id: string; email: string }
      expect(lin.email).toBe('lin@example.com')
      const [identity] = await opened.store.listIdentities(lin.id)
      expect(identity?.email).toBe('someone-else@example.com')
      expect(await opened.store.findUserByEmail('someone-else@example.com')).toBeNull()
    })

    run('a disabled account: account_disabled only once the identity is proven; enabled again, it signs in', async () => {
      const h = setup()
      const sub = `disabled-${crypto.randomUUID()}`
      idp.as(sub, { email: 'mo@example.com', email_verified: true, name: 'Mo' })
      await signIn(h)
      const mo = await opened.store.findUserByEmail('mo@example.com')
      const userId = mo?.user.id ?? ''
      const at = new Date()
      expect(
        await opened.store.setUserDisabled({ userId, disabledAt: at, revoke: accountEvents['account-disabled'] }),
      ).not.toBeNull()
      const refused = await signIn(h)
      expect(refused.location).toBe('/account?error=account_disabled&provider=oidc')
      expect(refreshCookie(refused.res)).toBeUndefined()
      expect(h.events.filter((e) => e.type === 'login.succeeded' && e.userId === userId)).toHaveLength(1)
      // A stranger's failed flow says nothing about the account.
      const stranger = await browser(h.app, APP).walk('/auth/oauth/oidc/callback?code=x&state=y')
      expect(stranger.location).toBe('/?error=invalid_state&provider=oidc')
      expect(
        await opened.store.setUserDisabled({ userId, disabledAt: null, revoke: accountEvents['account-enabled'] }),
      ).not.toBeNull()
      expect((await signIn(h)).location).toBe('/account')
    })

    run('a disabled account is refused before anything of it changes, also by a linkByEmail provider', async () => {
      const h = setup(true)
      const ada = await h.signup('ada@example.com')
      const before = await opened.store.findUserById(ada.user.id)
      expect(
        await opened.store.setUserDisabled({
          userId: ada.user.id,
          disabledAt: new Date(),
          revoke: accountEvents['account-disabled'],
        }),
      ).not.toBeNull()
      const disabled = await opened.store.findUserById(ada.user.id)
      // An unverified account and a trusted provider: the link would settle the account and link the identity.
      idp.as(`ada-${crypto.randomUUID()}`, { email: 'ada@example.com', email_verified: true })
      expect((await signIn(h)).location).toBe('/account?error=account_disabled&provider=oidc')
      expect(await opened.store.listIdentities(ada.user.id)).toEqual([])
      const after = await opened.store.findUserById(ada.user.id)
      expect(after?.user.emailVerified).toBe(false)
      expect(after?.passwordHash).toBe(before?.passwordHash)
      expect(after?.passwordHash).not.toBeNull()
      expect(after?.credentialsVersion).toBe(disabled?.credentialsVersion)
      expect(h.allMails.filter((m) => m.kind === 'identity-linked')).toEqual([])
    })

    run('an unknown identity with the email of an account: account_exists, nothing linked, nothing mailed', async () => {
      const h = setup()
      const ada = await h.signup('ada@example.com')
      await h.verifyEmail('ada@example.com')
      await h.auth.settled()
      const mails = h.allMails.length
      idp.as(`squatter-${crypto.randomUUID()}`, { email: 'ada@example.com', email_verified: true })
      const { res, location } = await signIn(h)
      expect(location).toBe('/account?error=account_exists&provider=oidc')
      expect(refreshCookie(res)).toBeUndefined()
      expect(await opened.store.listIdentities(ada.user.id)).toEqual([])
      await h.auth.settled()
      expect(h.allMails.length).toBe(mails)
    })

    run('linkByEmail links a verified email into the account; an unverified account loses the password set before', async () => {
      const h = setup(true)
      const ada = await h.signup('ada@example.com')
      idp.as(`owner-${crypto.randomUUID()}`, { email: 'ada@example.com', email_verified: true })
      const { location } = await signIn(h)
      expect(location).toBe('/account')
      expect((await opened.store.listIdentities(ada.user.id)).map((i) => i.provider)).toEqual(['oidc'])
      const found = await opened.store.findUserById(ada.user.id)
      expect(found?.user.emailVerified).toBe(true)
      expect(found?.passwordHash ?? '').toBe('')
      expect((await h.login('ada@example.com', PASSWORD)).status).toBe(401)
      // The squatter's session is gone.
      expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    })

    run('linkByEmail never links on an email the provider did not say was verified', async () => {
      const h = setup(true)
      const ada = await h.signup('ada@example.com')
      idp.as(`unverified-${crypto.randomUUID()}`, { email: 'ada@example.com', email_verified: false })
      const { location } = await signIn(h)
      expect(location).toBe('/account?error=account_exists&provider=oidc')
      expect(await opened.store.listIdentities(ada.user.id)).toEqual([])
    })

    run('a second factor still applies: ?second_factor= finishes with two-factor/verify (fed, otp, mfa)', async () => {
      const h = setup()
      const ada = await withTwoFactor(h)
      const sub = `tfa-${crypto.randomUUID()}`
      idp.as(sub, { email: 'ada-provider@example.com', email_verified: true })
      // Linked from a fresh session first.
      expect(await link(h, ada.bearer, { returnTo: '/account' })).toBe('/account?linked=oidc')
      const { res, location } = await signIn(h)
      expect(refreshCookie(res)).toBeUndefined()
      const challenge = new URL(location, APP).searchParams.get('second_factor')
      expect(challenge).toBeTruthy()
      const verified = await h.request('POST', '/auth/two-factor/verify', { json: { challenge, code: ada.code() } })
      expect(verified.status).toBe(200)
      expect(decodeJwt(((await verified.json()) as { accessToken: string }).accessToken).amr).toEqual(['fed', 'otp', 'mfa'])
    })

    run('link, list and unlink; the last way in stays; an identity of another account is identity_in_use', async () => {
      const h = setup()
      const sub = `solo-${crypto.randomUUID()}`
      idp.as(sub, { email: 'solo@example.com', email_verified: true })
      const { browser: soloBrowser } = await signIn(h)
      const solo = { Authorization: `Bearer ${await accessToken(h, soloBrowser)}` }
      const [identity] = (await (await h.request('GET', '/auth/identities', { headers: solo })).json()) as { id: string }[]
      expect(identity).toMatchObject({ provider: 'oidc', email: 'solo@example.com' })
      const last = await h.request('DELETE', `/auth/identities/${identity?.id}`, { headers: solo })
      expect(last.status).toBe(409)
      expect(await last.json()).toMatchObject({ code: 'last_credential' })

      const ada = await h.signup('ada@example.com')
      await h.verifyEmail('ada@example.com')
      expect(await link(h, ada.bearer)).toBe('/?error=identity_in_use&provider=oidc')
      idp.as(`ada-${crypto.randomUUID()}`, { email: 'ada-at-idp@example.com', email_verified: true })
      expect(await link(h, ada.bearer)).toBe('/?linked=oidc')
      const listed = (await (await h.request('GET', '/auth/identities', { headers: ada.bearer })).json()) as { id: string }[]
      expect(listed).toHaveLength(1)
      expect((await h.request('DELETE', `/auth/identities/${identity?.id}`, { headers: ada.bearer })).status).toBe(404)
      expect((await h.request('DELETE', `/auth/identities/${listed[0]?.id}`, { headers: ada.bearer })).status).toBe(204)
      await h.auth.settled()
      expect(h.allMails.map((m) => m.kind)).toEqual(expect.arrayContaining(['identity-linked', 'identity-unlinked']))
      expect(h.events.map((e) => e.type)).toEqual(expect.arrayContaining(['identity.linked', 'identity.unlinked']))
    })

    run('linking needs a fresh session and a verified address; a link callback in another browser links nothing', async () => {
      const h = setup()
      const ada = await h.signup('ada@example.com')
      expect((await h.request('POST', '/auth/oauth/oidc/link', { json: {}, headers: ada.bearer })).status).toBe(403)
      await h.verifyEmail('ada@example.com')
      h.clock.advance(301_000)
      const stale = await h.request('POST', '/auth/oauth/oidc/link', { json: {}, headers: ada.bearer })
      expect(stale.status).toBe(401)
      expect(await stale.json()).toMatchObject({ code: 'reauthentication_required' })
      const fresh = await h.login('ada@example.com')
      const bearer = { Authorization: `Bearer ${((await fresh.json()) as { accessToken: string }).accessToken}` }
      for (const returnTo of ['//evil.example', 'https://evil.example/', '/a\u0000b', 42, 'x'.repeat(10_000)])
        expect((await h.request('POST', '/auth/oauth/oidc/link', { json: { returnTo }, headers: bearer })).status).toBe(400)
      expect((await h.request('POST', '/auth/oauth/nope/link', { json: {}, headers: bearer })).status).toBe(404)
      idp.as(`victim-${crypto.randomUUID()}`, { email: 'victim@example.com', email_verified: true })
      // The authorization URL sent to someone else: their browser has no flow cookie.
      expect(await link(h, bearer, { stranger: true })).toBe('/?error=invalid_state&provider=oidc')
      expect(await opened.store.listIdentities(ada.user.id)).toEqual([])
    })
  })
})
