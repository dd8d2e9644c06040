/**
 * The flow between a start and its callback, on both stores: `state` bound to the browser by the
 * flow cookie, single use, ten minutes, one provider; `returnTo` never an open redirect; hostile
 * callback parameters answered with a redirect or a 4xx, never a 5xx; the server serving while a
 * provider is down, and reaching it again once it is back; GitHub's plain OAuth 2.0 path, where
 * the identity is (GitHub, numeric id) and the email only a verified primary one.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { harness } from '../../test/harness.js'
import { freePort, HOSTILE_CLIENT, startGitHubFake, startHostileProvider } from '../../test/hostile-provider.js'
import { begin, callback, landed } from '../../test/oauth-flow.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { github } from './providers.js'

type Hostile = Awaited<ReturnType<typeof startHostileProvider>>
type GitHubFake = Awaited<ReturnType<typeof startGitHubFake>>

describe.each(STORES)('the sign-in flow on $name', ({ skip, open }) => {
  let idp: Hostile
  let gh: GitHubFake
  let downPort: number
  let opened: OpenedStore
  beforeAll(async () => {
    idp = await startHostileProvider()
    gh = await startGitHubFake()
    downPort = await freePort()
  })
  afterAll(async () => {
    await idp.close()
    await gh.close()
  })
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)
  const setup = (more: Parameters<typeof harness>[0] = {}) =>
    harness({
      ...more,
      store: opened.store,
      providers: [
        { id: 'bad', name: 'Hostile', issuer: idp.issuer, ...HOSTILE_CLIENT },
        { id: 'other', name: 'Other', issuer: idp.issuer, ...HOSTILE_CLIENT },
        { id: 'down', name: 'Down', issuer: `http://127.0.0.1:${downPort}`, ...HOSTILE_CLIENT },
        github({ ...HOSTILE_CLIENT, webUrl: gh.url, apiUrl: gh.url }),
      ],
    })
  const now = () => Math.floor(Date.now() / 1000)
  const good = (nonce: string, sub = 'p1', email = 'p1@example.com') => ({
    iss: idp.issuer,
    aud: HOSTILE_CLIENT.clientId,
    sub,
    nonce,
    iat: now(),
    exp: now() + 300,
    email,
    email_verified: true,
  })
  const iss = () => `&iss=${encodeURIComponent(idp.issuer)}`

  run('lists the providers in order, nothing secret', async () => {
    const res = await setup().request('GET', '/auth/oauth/providers')
    expect(await res.json()).toEqual([
      { id: 'bad', name: 'Hostile' },
      { id: 'other', name: 'Other' },
      { id: 'down', name: 'Down' },
      { id: 'github', name: 'GitHub' },
    ])
  })

  run('state is bound to the browser: no cookie, another state, a replay, another provider, an old flow', async () => {
    const h = setup()
    const s = await begin(h, 'bad')
    idp.respond(good(s.nonce))
    expect(await landed(await callback(h, 'bad', `code=c&state=${s.state}${iss()}`))).toBe('/?error=invalid_state&provider=bad')
    const t = await begin(h, 'bad')
    idp.respond(good(t.nonce))
    expect(await landed(await callback(h, 'bad', `code=c&state=${s.state}${iss()}`, t.cookie))).toBe(
      '/back?error=invalid_state&provider=bad',
    )
    const u = await begin(h, 'bad')
    idp.respond(good(u.nonce))
    expect(await landed(await callback(h, 'bad', `code=c&state=${u.state}${iss()}`, u.cookie))).toBe('/back')
    expect(await landed(await callback(h, 'bad', `code=c&state=${u.state}${iss()}`, u.cookie))).toBe(
      '/?error=invalid_state&provider=bad',
    )
    const v = await begin(h, 'bad')
    expect(await landed(await callback(h, 'other', `code=c&state=${v.state}${iss()}`, v.cookie))).toBe(
      '/back?error=invalid_state&provider=other',
    )
    const w = await begin(h, 'bad')
    h.clock.advance(10 * 60_000 + 1)
    expect(await landed(await callback(h, 'bad', `code=c&state=${w.state}${iss()}`, w.cookie))).toBe(
      '/?error=invalid_state&provider=bad',
    )
    const x = await begin(h, 'bad')
    const repeated = await callback(h, 'bad', `code=c&state=${x.state}&state=${x.state}${iss()}`, x.cookie)
    expect(await landed(repeated)).toBe('/back?error=invalid_state&provider=bad')
  })

  run('limited per IP: the third start is a 429, the third callback lands with rate_limited', async () => {
    const h = setup({ rateLimit: { ip: { max: 2, windowSeconds: 900 } } })
    const s = await begin(h, 'bad')
    await begin(h, 'bad')
    expect((await h.request('GET', '/auth/oauth/bad')).status).toBe(429)
    await callback(h, 'bad', 'code=c&state=x')
    await callback(h, 'bad', 'code=c&state=x')
    idp.respond(good(s.nonce))
    expect(await landed(await callback(h, 'bad', `code=c&state=${s.state}${iss()}`, s.cookie))).toBe(
      '/back?error=rate_limited&provider=bad',
    )
  })

  run('the user cancelled at the provider: access_denied', async () => {
    const h = setup()
    const s = await begin(h, 'bad')
    const res = await callback(h, 'bad', `error=access_denied&state=${s.state}${iss()}`, s.cookie)
    expect(await landed(res)).toBe('/back?error=access_denied&provider=bad')
  })

  run('returnTo: a path or a trusted origin; anything else is 400; unknown provider 404', async () => {
    const h = setup()
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/x', 'javascript:alert(1)', 'x', '/a\u0000b'])
      expect((await h.request('GET', `/auth/oauth/bad?returnTo=${encodeURIComponent(bad)}`)).status).toBe(400)
    expect((await h.request('GET', '/auth/oauth/bad?returnTo=/a&returnTo=/b')).status).toBe(400)
    const trusted = await h.request('GET', `/auth/oauth/bad?returnTo=${encodeURIComponent('http://app.test/home')}`)
    expect(trusted.status).toBe(302)
    expect((await h.request('GET', '/auth/oauth/nope')).status).toBe(404)
    expect((await h.request('GET', '/auth/oauth/nope/callback?code=x&state=y')).status).toBe(404)
  })

  run('hostile callback parameters: a redirect or a 4xx, never a 5xx', async () => {
    const h = setup()
    const long = 'a'.repeat(10_000)
    const queries = (state: string) => [
      `state=${state}${iss()}`,
      `code=%00&state=${state}${iss()}`,
      `code=%ED%A0%80&state=${state}%ED%A0%80${iss()}`,
      `code=${long}&state=${long}&iss=${long}`,
      `code=c&state=${state}&state=other${iss()}`,
      `code=%E0%A4%A&state=%`,
      `code=c&state=${state}&iss=${encodeURIComponent(idp.issuer)}&iss=x`,
      '',
    ]
    for (const q of queries((await begin(h, 'bad')).state)) {
      const s = await begin(h, 'bad')
      idp.respond(good(s.nonce))
      const res = await callback(h, 'bad', q.replaceAll(/state=[\w-]{43}/g, `state=${s.state}`), s.cookie)
      expect([302, 400, 404]).toContain(res.status)
      expect(res.headers.get('location') ?? '').not.toMatch(/token|eyJ/)
    }
    expect((await h.request('GET', `/auth/oauth/${'x'.repeat(10_000)}/callback?code=1`)).status).toBeLessThan(500)
    expect((await h.request('GET', '/auth/oauth/%00/callback')).status).toBeLessThan(500)
  })

  run(
    'a provider that is down: the start sends the browser back, the rest works, and it is reached again once back',
    async () => {
      const h = setup()
      const down = await h.request('GET', '/auth/oauth/down?returnTo=/in')
      expect(down.status).toBe(302)
      expect(down.headers.get('location')).toBe('/in?error=provider_unavailable&provider=down')
      expect(down.headers.getSetCookie().some((l) => l.startsWith('oauth_flow='))).toBe(false)
      expect((await h.request('GET', '/auth/oauth/providers')).status).toBe(200)
      await h.signup('ada@example.com')
      const back = await startHostileProvider({ port: downPort })
      try {
        // A failure is remembered for at most 5 seconds.
        h.clock.advance(5_001)
        const res = await h.request('GET', '/auth/oauth/down?returnTo=/in')
        expect(new URL(res.headers.get('location') ?? '').origin).toBe(back.issuer)
      } finally {
        await back.close()
      }
    },
  )

  run(
    'GitHub: the identity is its numeric id, the email only a verified primary one; Google 99999 is another identity',
    async () => {
      const h = setup()
      gh.as({
        id: 99999,
        login: 'octo',
        name: 'Octo Cat',
        emails: [{ email: 'octo@example.com', primary: true, verified: true }],
      })
      const s = await begin(h, 'github')
      expect(s.authorize.searchParams.get('code_challenge_method')).toBe('S256')
      expect(await landed(await callback(h, 'github', `code=c&state=${s.state}`, s.cookie))).toBe('/back')
      expect(gh.tokenRequests.at(-1)?.get('code_verifier')).toBeTruthy()
      const octo = await opened.store.findUserByEmail('octo@example.com')
      expect(octo?.user).toMatchObject({ name: 'Octo Cat', emailVerified: true })
      expect(await opened.store.findIdentity(gh.url, '99999')).toMatchObject({ userId: octo?.user.id, provider: 'github' })
      // The same number at an OpenID Connect provider is someone else.
      const t = await begin(h, 'bad')
      idp.respond(good(t.nonce, '99999', 'nine@example.com'))
      expect(await landed(await callback(h, 'bad', `code=c&state=${t.state}${iss()}`, t.cookie))).toBe('/back')
      expect((await opened.store.findIdentity(idp.issuer, '99999'))?.userId).not.toBe(octo?.user.id)
      // A primary address GitHub has not verified is no email at all.
      gh.as({ id: 4242, login: 'new', emails: [{ email: 'unverified@example.com', primary: true, verified: false }] })
      const u = await begin(h, 'github')
      expect(await landed(await callback(h, 'github', `code=c&state=${u.state}`, u.cookie))).toBe(
        '/back?error=email_required&provider=github',
      )
    },
  )
})
