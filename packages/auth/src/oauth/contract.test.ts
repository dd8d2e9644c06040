/**
 * Promises of social sign-in (docs/guide/social-sign-in.md) that the other tests of this folder
 * leave unproven, checked over HTTP on both stores against the hostile provider of the tests: the
 * authorization URL's parameters, the flow cookie where cookies are Secure, a failed token
 * exchange, `returnTo` kept as given (a trusted absolute URL, its own query), the device cookie on
 * the second-factor landing, a provider sign-in being a fresh session, linking an identity twice,
 * linking and unlinking keeping the other sessions, an identity outliving a password reset, a link
 * while the provider is down, `returnTo` paths whose dot segments make `//host` (an open redirect),
 * the new account's name, the default limits per IP, and the refusal at construction of an issuer
 * over plain http off loopback.
 */
import type { JWTPayload } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deviceCookie, harness, refreshCookie } from '../../test/harness.js'
import { HOSTILE_CLIENT, startHostileProvider } from '../../test/hostile-provider.js'
import { begin, callback, landed, type Started } from '../../test/oauth-flow.js'
import { onEveryStore } from '../../test/stores.js'
import { withTwoFactor } from '../../test/two-factor.js'

type Hostile = Awaited<ReturnType<typeof startHostileProvider>>
type H = ReturnType<typeof harness>
type Json = Record<string, unknown>

let idp: Hostile
beforeAll(async () => {
  idp = await startHostileProvider()
})
afterAll(async () => {
  await idp.close()
})

const now = () => Math.floor(Date.now() / 1000)
const claims = (nonce: string, more: JWTPayload = {}): JWTPayload => ({
  iss: idp.issuer,
  aud: HOSTILE_CLIENT.clientId,
  sub: 'person-1',
  nonce,
  iat: now(),
  exp: now() + 300,
  email: 'person@example.com',
  email_verified: true,
  name: 'Person One',
  ...more,
})
const iss = () => `&iss=${encodeURIComponent(idp.issuer)}`
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

/** A whole sign-in as the provider's `claims` say, in a new browser; the callback's answer. */
const signIn = async (h: H, more: JWTPayload = {}, returnTo = '/back') => {
  const s = await begin(h, 'bad', returnTo)
  idp.respond(claims(s.nonce, more))
  return callback(h, 'bad', `code=c&state=${s.state}${iss()}`, s.cookie)
}

/** Starts a link as the holder of `token` and calls back, in that browser, as the provider's `claims` say. */
const link = async (h: H, token: string, more: JWTPayload) => {
  const res = await h.request('POST', '/auth/oauth/bad/link', { json: {}, headers: bearer(token) })
  expect(res.status).toBe(200)
  const url = new URL(((await res.json()) as { url: string }).url)
  const flow = res.headers.getSetCookie().find((line) => line.startsWith('oauth_flow=')) ?? ''
  idp.respond(claims(url.searchParams.get('nonce') ?? '', more))
  return landed(await callback(h, 'bad', `code=c&state=${url.searchParams.get('state')}${iss()}`, flow.split(';')[0]))
}

const base64urlBytes = (value: string) => Buffer.from(value, 'base64url').length

describe('the providers option', () => {
  it('refuses an issuer over plain http at construction unless its host is loopback', () => {
    const provider = (issuer: string) => ({ id: 'corp', name: 'Corp', issuer, ...HOSTILE_CLIENT })
    for (const issuer of [
      'http://sso.example',
      'http://127.0.0.1.nip.io',
      'http://10.0.0.1',
      'http://[::2]',
      'ftp://sso.example',
    ])
      expect(() => harness({ providers: [provider(issuer)] }), issuer).toThrow(/providers\[0\]\.issuer/)
    for (const issuer of [
      'https://sso.example',
      'http://localhost:8080',
      'http://127.0.0.1:9',
      'http://127.1.2.3',
      'http://[::1]:9',
    ])
      expect(() => harness({ providers: [provider(issuer)] }), issuer).not.toThrow()
  })
})

onEveryStore('social sign-in’s promises on $name', ({ opened, run }) => {
  const setup = (more: Parameters<typeof harness>[0] = {}) =>
    harness({
      store: opened().store,
      providers: [{ id: 'bad', name: 'Hostile', issuer: idp.issuer, ...HOSTILE_CLIENT }],
      ...more,
    })

  run(
    'the authorization URL: the code flow, the client, the redirect URI of publicUrl, openid email profile, new secrets each time',
    async () => {
      const h = setup()
      const a = await begin(h, 'bad')
      const b = await begin(h, 'bad')
      const params = a.authorize.searchParams
      expect(`${a.authorize.origin}${a.authorize.pathname}`).toBe(`${idp.issuer}/authorize`)
      expect(params.get('response_type')).toBe('code')
      expect(params.get('client_id')).toBe(HOSTILE_CLIENT.clientId)
      expect(params.get('redirect_uri')).toBe('http://app.test/auth/oauth/bad/callback')
      expect(params.get('scope')).toBe('openid email profile')
      expect(params.get('code_challenge_method')).toBe('S256')
      expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/)
      // At least 128 random bits each, and new for every flow.
      expect(base64urlBytes(a.state)).toBeGreaterThanOrEqual(16)
      expect(base64urlBytes(a.nonce)).toBeGreaterThanOrEqual(16)
      expect(new Set([a.state, b.state, a.nonce, b.nonce]).size).toBe(4)
      expect(a.cookie).not.toBe(b.cookie)
      // Nothing secret in it.
      expect(a.authorize.href).not.toContain(HOSTILE_CLIENT.clientSecret)
      // Without returnTo the browser lands on `/`.
      const start = await h.request('GET', '/auth/oauth/bad')
      const url = new URL(start.headers.get('location') ?? '')
      const cookie = (start.headers.getSetCookie().find((l) => l.startsWith('oauth_flow=')) ?? '').split(';')[0] ?? ''
      idp.respond(claims(url.searchParams.get('nonce') ?? ''))
      expect(await landed(await callback(h, 'bad', `code=c&state=${url.searchParams.get('state')}${iss()}`, cookie))).toBe('/')
    },
  )

  run('where cookies are Secure, the flow cookie is Secure too, and the flow finishes', async () => {
    const h = setup({ secureCookies: true })
    const start = await h.request('GET', '/auth/oauth/bad?returnTo=/back')
    expect(start.status).toBe(302)
    const line = start.headers.getSetCookie().find((l) => /^(__Secure-)?oauth_flow=/.test(l)) ?? ''
    expect(line).toMatch(/; Secure/)
    expect(line).toMatch(/HttpOnly/)
    expect(line).toMatch(/SameSite=Lax/)
    expect(line).toMatch(/Path=\/auth\/oauth/)
    const url = new URL(start.headers.get('location') ?? '')
    idp.respond(claims(url.searchParams.get('nonce') ?? ''))
    const res = await callback(h, 'bad', `code=c&state=${url.searchParams.get('state')}${iss()}`, line.split(';')[0])
    expect(await landed(res)).toBe('/back')
    expect(res.headers.getSetCookie().some((l) => /^__Secure-refresh_token=[^;]+;.*Secure/.test(l))).toBe(true)
  })

  run('a token exchange that fails is provider_error; login.failed names the method and the provider', async () => {
    const gone = await startHostileProvider()
    const h = harness({
      store: opened().store,
      providers: [{ id: 'gone', name: 'Gone', issuer: gone.issuer, ...HOSTILE_CLIENT }],
    })
    const s = await begin(h, 'gone')
    // Discovery went well; the provider is down by the time the browser comes back.
    await gone.close()
    const res = await callback(h, 'gone', `code=c&state=${s.state}&iss=${encodeURIComponent(gone.issuer)}`, s.cookie)
    expect(await landed(res)).toBe('/back?error=provider_error&provider=gone')
    expect(refreshCookie(res)).toBeUndefined()
    expect(await opened().count('auth_users')).toBe(0)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'login.failed')).toEqual([
      expect.objectContaining({ type: 'login.failed', method: 'oauth', provider: 'gone' }),
    ])
  })

  run('returnTo comes back as given: a trusted absolute URL unchanged, an error added to its own query', async () => {
    const h = setup()
    const home = 'http://app.test/home?tab=1#top'
    expect(await landed(await signIn(h, {}, home))).toBe(home)
    const s = await begin(h, 'bad', '/back?tab=2')
    expect(await landed(await callback(h, 'bad', `error=access_denied&state=${s.state}${iss()}`, s.cookie))).toBe(
      '/back?tab=2&error=access_denied&provider=bad',
    )
    const t = await begin(h, 'bad', 'http://app.test/home?tab=3')
    expect(await landed(await callback(h, 'bad', `error=access_denied&state=${t.state}${iss()}`, t.cookie))).toBe(
      'http://app.test/home?tab=3&error=access_denied&provider=bad',
    )
  })

  run('a path whose dot segments make it //host is refused: no landing may leave the site', async () => {
    const h = setup()
    for (const bad of [
      '/..//evil.example',
      '/.//evil.example',
      '/%2e%2e//evil.example',
      '/.%2E//evil.example',
      '/a/..//evil.example/x',
    ])
      expect((await h.request('GET', `/auth/oauth/bad?returnTo=${encodeURIComponent(bad)}`)).status, bad).toBe(400)
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    expect(
      (await h.request('POST', '/auth/oauth/bad/link', { json: { returnTo: '/..//evil.example' }, headers: ada.bearer })).status,
    ).toBe(400)
    // What is accepted lands on the site, whatever is added to it.
    for (const fine of ['/a/../b', '/%2F/evil.example', '/a/.../x', '/..', '/a?next=//evil.example']) {
      const s = await begin(h, 'bad', fine)
      const to = await landed(await callback(h, 'bad', `error=access_denied&state=${s.state}${iss()}`, s.cookie))
      expect(new URL(to, 'http://app.test/auth/oauth/bad/callback').origin, `${fine} -> ${to}`).toBe('http://app.test')
    }
  })

  run('a second factor due: the landing sets the device cookie and no session; the factor finishes it', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    expect(await link(h, ada.accessToken, { sub: 'ada-at-idp', email: 'ada@example.com' })).toBe('/?linked=bad')
    const res = await signIn(h, { sub: 'ada-at-idp', email: 'ada@example.com' })
    const location = new URL(await landed(res), 'http://app.test')
    expect(location.pathname).toBe('/back')
    const challenge = location.searchParams.get('second_factor')
    expect(challenge).toBeTruthy()
    expect([...location.searchParams.keys()]).toEqual(['second_factor'])
    expect(deviceCookie(res)).toBeTruthy()
    expect(refreshCookie(res)).toBeUndefined()
    const verified = await h.request('POST', '/auth/two-factor/verify', {
      json: { challenge, code: ada.code() },
      headers: { Cookie: `device=${deviceCookie(res)}` },
    })
    expect(verified.status).toBe(200)
  })

  run('a provider sign-in is a fresh session: a fresh route answers at once, and asks again 5 minutes later', async () => {
    const h = setup()
    const res = await signIn(h)
    expect(await landed(res)).toBe('/back')
    const first = await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${refreshCookie(res)}` } })
    expect(first.status).toBe(200)
    const token = ((await first.json()) as { accessToken: string }).accessToken
    const fresh = await h.request('POST', '/auth/oauth/bad/link', { json: {}, headers: bearer(token) })
    expect(fresh.status).toBe(200)
    h.clock.advance(301_000)
    // The refresh cookie rotated: the browser sends the one the first refresh set.
    const later = await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${refreshCookie(first)}` } })
    expect(later.status).toBe(200)
    const stale = await h.request('POST', '/auth/oauth/bad/link', {
      json: {},
      headers: bearer(((await later.json()) as { accessToken: string }).accessToken),
    })
    expect(stale.status).toBe(401)
    expect(await stale.json()).toMatchObject({ code: 'reauthentication_required' })
  })

  run('an identity linked twice to the same user lands on ?linked= again; link and unlink keep the other sessions', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    const other = (await (await h.login('ada@example.com')).json()) as { accessToken: string }
    expect(await link(h, ada.accessToken, { sub: 'twice', email: 'ada@idp.example' })).toBe('/?linked=bad')
    expect(await link(h, ada.accessToken, { sub: 'twice', email: 'ada@idp.example' })).toBe('/?linked=bad')
    const listed = (await (await h.request('GET', '/auth/identities', { headers: ada.bearer })).json()) as Json[]
    expect(listed).toHaveLength(1)
    expect(Object.keys(listed[0] ?? {}).sort()).toEqual(['createdAt', 'email', 'id', 'lastUsedAt', 'provider'])
    expect(listed[0]).toMatchObject({ provider: 'bad', email: 'ada@idp.example', createdAt: h.clock.now().toISOString() })
    expect((await h.request('GET', '/auth/me', { headers: bearer(other.accessToken) })).status).toBe(200)
    expect((await h.request('DELETE', `/auth/identities/${listed[0]?.id}`, { headers: ada.bearer })).status).toBe(204)
    expect((await h.request('GET', '/auth/me', { headers: bearer(other.accessToken) })).status).toBe(200)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(200)
    await h.auth.settled()
    expect(h.allMails.filter((m) => m.kind === 'identity-linked')).toHaveLength(1)
    expect(h.allMails.filter((m) => m.kind === 'identity-unlinked')).toHaveLength(1)
  })

  run('a linked identity survives a password reset and signs in after it; its lastUsedAt is the last sign-in', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    expect(await link(h, ada.accessToken, { sub: 'kept', email: 'ada@idp.example' })).toBe('/?linked=bad')
    const listed = async (token: string) =>
      ((await (await h.request('GET', '/auth/identities', { headers: bearer(token) })).json()) as Json[])[0]
    expect(await listed(ada.accessToken)).toMatchObject({ lastUsedAt: null })
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    const { token } = await h.mailOf('reset-password', 'ada@example.com')
    const reset = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'a brand new passphrase 9' } })
    expect(reset.status).toBe(204)
    h.clock.advance(60_000)
    const res = await signIn(h, { sub: 'kept', email: 'ada@idp.example' })
    expect(await landed(res)).toBe('/back')
    const refreshed = await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${refreshCookie(res)}` } })
    const { accessToken } = (await refreshed.json()) as { accessToken: string }
    const me = await h.request('GET', '/auth/me', { headers: bearer(accessToken) })
    expect(((await me.json()) as Json).id).toBe(ada.user.id)
    expect(await listed(accessToken)).toMatchObject({ lastUsedAt: h.clock.now().toISOString() })
  })

  run(
    'a link ends with the session that started it: after a reset or a sign-out in its ten minutes it links nothing',
    async () => {
      const h = setup()
      await h.signup('ada@example.com')
      await h.verifyEmail('ada@example.com')
      /** Starts a link as the holder of `token`; `finish` calls back in that browser as the provider says. */
      const start = async (token: string, sub: string) => {
        const res = await h.request('POST', '/auth/oauth/bad/link', { json: {}, headers: bearer(token) })
        expect(res.status).toBe(200)
        const url = new URL(((await res.json()) as { url: string }).url)
        const flow = (res.headers.getSetCookie().find((line) => line.startsWith('oauth_flow=')) ?? '').split(';')[0]
        return async () => {
          idp.respond(claims(url.searchParams.get('nonce') ?? '', { sub, email: 'ada@idp.example' }))
          return landed(await callback(h, 'bad', `code=c&state=${url.searchParams.get('state')}${iss()}`, flow))
        }
      }
      // A thief with the password starts a link; the owner resets the password before the callback.
      const thief = await h.login('ada@example.com')
      const thiefToken = ((await thief.json()) as { accessToken: string }).accessToken
      const finishThief = await start(thiefToken, 'thief-at-idp')
      await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
      const { token } = await h.mailOf('reset-password', 'ada@example.com')
      const reset = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'a brand new passphrase 9' } })
      expect(reset.status).toBe(204)
      expect(await finishThief()).toBe('/?error=invalid_state&provider=bad')
      // The owner signs in again; a link started and signed out of before its callback links nothing either.
      const owner = await h.login('ada@example.com', 'a brand new passphrase 9')
      const ownerToken = ((await owner.json()) as { accessToken: string }).accessToken
      const finishOwner = await start(ownerToken, 'owner-at-idp')
      expect((await h.request('POST', '/auth/logout', { headers: bearer(ownerToken) })).status).toBe(204)
      expect(await finishOwner()).toBe('/?error=invalid_state&provider=bad')
      // Nothing linked, nothing mailed as linked; a link from a live session still links.
      const again = await h.login('ada@example.com', 'a brand new passphrase 9')
      const againToken = ((await again.json()) as { accessToken: string }).accessToken
      expect(await (await h.request('GET', '/auth/identities', { headers: bearer(againToken) })).json()).toEqual([])
      expect(h.allMails.filter((m) => m.kind === 'identity-linked')).toHaveLength(0)
      expect(await (await start(againToken, 'owner-at-idp'))()).toBe('/?linked=bad')
    },
  )

  run('a link while the provider cannot be found: the url is returnTo with ?error=provider_unavailable, no flow', async () => {
    const h = harness({
      store: opened().store,
      providers: [{ id: 'down', name: 'Down', issuer: 'http://127.0.0.1:9', ...HOSTILE_CLIENT }],
    })
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    const res = await h.request('POST', '/auth/oauth/down/link', { json: { returnTo: '/account' }, headers: ada.bearer })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ url: '/account?error=provider_unavailable&provider=down' })
    expect(res.headers.getSetCookie().some((l) => l.includes('oauth_flow='))).toBe(false)
  })

  run('unlinking needs a signed-in, fresh session', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    expect(await link(h, ada.accessToken, { sub: 'stale', email: 'ada@idp.example' })).toBe('/?linked=bad')
    const [identity] = (await (await h.request('GET', '/auth/identities', { headers: ada.bearer })).json()) as Json[]
    expect((await h.request('GET', '/auth/identities')).status).toBe(401)
    expect((await h.request('DELETE', `/auth/identities/${identity?.id}`)).status).toBe(401)
    h.clock.advance(301_000)
    const stale = await h.request('DELETE', `/auth/identities/${identity?.id}`, { headers: ada.bearer })
    expect(stale.status).toBe(401)
    expect(await stale.json()).toMatchObject({ code: 'reauthentication_required' })
    expect(await opened().count('auth_identities')).toBe(1)
  })

  run('a new account: the provider’s name, else the email’s local part; signup comes before login.succeeded', async () => {
    const h = setup()
    expect(await landed(await signIn(h, { sub: 'named', email: 'Named@Example.com' }))).toBe('/back')
    expect((await opened().store.findUserByEmail('named@example.com'))?.user.name).toBe('Person One')
    expect(await landed(await signIn(h, { sub: 'nameless', email: 'grace.h@example.com', name: undefined }))).toBe('/back')
    expect((await opened().store.findUserByEmail('grace.h@example.com'))?.user.name).toBe('grace.h')
    await h.auth.settled()
    const types = h.events.map((e) => e.type).filter((t) => t === 'signup' || t === 'login.succeeded')
    expect(types).toEqual(['signup', 'login.succeeded', 'signup', 'login.succeeded'])
  })

  run('an account’s email in another case or padding is the account’s: account_exists, no second account', async () => {
    const h = setup()
    await h.signup('ada@example.com')
    for (const email of ['ADA@Example.COM', ' ada@example.com ', 'Ada@EXAMPLE.com'])
      expect(await landed(await signIn(h, { sub: `other-${email}`, email })), email).toBe(
        '/back?error=account_exists&provider=bad',
      )
    expect(await opened().count('auth_users')).toBe(1)
    expect(await opened().count('auth_identities')).toBe(0)
  })

  run('by default, 100 starts per IP per 15 minutes (the 101st is 429), and 100 callbacks (then rate_limited)', async () => {
    const h = setup()
    let s: Started | undefined
    for (let i = 0; i < 100; i++) s = await begin(h, 'bad')
    const over = await h.request('GET', '/auth/oauth/bad')
    expect(over.status).toBe(429)
    expect(over.headers.get('retry-after')).toBeTruthy()
    expect((await h.request('GET', '/auth/oauth/bad', { ip: '198.51.100.9' })).status).toBe(302)
    for (let i = 0; i < 99; i++) await callback(h, 'bad', 'code=c&state=x')
    idp.respond(claims(s?.nonce ?? ''))
    // The 100th callback is still served: it signs in.
    expect(await landed(await callback(h, 'bad', `code=c&state=${s?.state}${iss()}`, s?.cookie))).toBe('/back')
    expect(await landed(await callback(h, 'bad', 'code=c&state=x'))).toBe('/?error=rate_limited&provider=bad')
  })
})
