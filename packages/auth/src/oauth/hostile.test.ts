/**
 * What a real provider never sends, from a hostile one of our own, on both stores: an ID token
 * with a wrong `iss`, `aud` or `nonce`, `alg: none`, an unknown `kid`, expired, a second audience
 * without `azp`; `email_verified: "true"` as a string; RFC 9207 `iss` missing or wrong when the
 * provider advertises it; and nothing of the provider's tokens in any log line, the kept ones sealed.
 */
import type { JWTPayload } from 'jose'
import { calculatePKCECodeChallenge } from 'oauth4webapi'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { harness, refreshCookie } from '../../test/harness.js'
import { HOSTILE_CLIENT, startHostileProvider } from '../../test/hostile-provider.js'
import { begin, callback, landed, type Started } from '../../test/oauth-flow.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

type Hostile = Awaited<ReturnType<typeof startHostileProvider>>

describe.each(STORES)('a hostile provider on $name', ({ skip, open }) => {
  let idp: Hostile
  let opened: OpenedStore
  beforeAll(async () => {
    idp = await startHostileProvider()
  })
  afterAll(async () => {
    await idp.close()
  })
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)
  const setup = (more: { linkByEmail?: boolean; keepTokens?: boolean; signUp?: boolean } = {}) =>
    harness({ store: opened.store, providers: [{ id: 'bad', name: 'Hostile', issuer: idp.issuer, ...HOSTILE_CLIENT, ...more }] })
  const now = () => Math.floor(Date.now() / 1000)
  const claims = (s: Started, more: JWTPayload = {}): JWTPayload => ({
    iss: idp.issuer,
    aud: HOSTILE_CLIENT.clientId,
    sub: 'person-1',
    nonce: s.nonce,
    iat: now(),
    exp: now() + 300,
    email: 'person@example.com',
    email_verified: true,
    ...more,
  })
  /** Starts, has the provider answer `make(started)` signed as `how`, and calls back with a code. */
  const attempt = async (
    h: ReturnType<typeof setup>,
    make: (s: Started) => JWTPayload,
    how: 'signed' | 'none' | 'unknown-kid' = 'signed',
    query?: (s: Started) => string,
  ) => {
    const s = await begin(h, 'bad')
    idp.respond(make(s), how)
    const q = query?.(s) ?? `code=c0de&state=${s.state}&iss=${encodeURIComponent(idp.issuer)}`
    return callback(h, 'bad', q, s.cookie)
  }

  run('a valid ID token signs in; the code went with the PKCE verifier of the S256 challenge', async () => {
    const h = setup()
    const s = await begin(h, 'bad')
    expect(s.authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(s.state.length).toBeGreaterThanOrEqual(43)
    expect(s.nonce.length).toBeGreaterThanOrEqual(43)
    expect(s.setCookie).toMatch(/HttpOnly/)
    expect(s.setCookie).toMatch(/SameSite=Lax/)
    expect(s.setCookie).toMatch(/Path=\/auth\/oauth/)
    expect(s.setCookie).toMatch(/Max-Age=600/)
    idp.respond(claims(s))
    const res = await callback(h, 'bad', `code=c0de&state=${s.state}&iss=${encodeURIComponent(idp.issuer)}`, s.cookie)
    expect(await landed(res)).toBe('/back')
    expect(refreshCookie(res)).toBeTruthy()
    const verifier = idp.tokenRequests.at(-1)?.get('code_verifier') ?? ''
    expect(await calculatePKCECodeChallenge(verifier)).toBe(s.authorize.searchParams.get('code_challenge'))
  })

  const refused: [string, (s: Started) => JWTPayload, ('signed' | 'none' | 'unknown-kid')?][] = [
    ['a wrong iss', (s) => claims(s, { iss: 'https://evil.example' })],
    ['a wrong aud', (s) => claims(s, { aud: 'someone-else' })],
    ['a wrong nonce', (s) => claims(s, { nonce: 'replayed-nonce' })],
    ['no nonce', (s) => claims(s, { nonce: undefined })],
    ['alg none', (s) => claims(s), 'none'],
    ['an unknown kid', (s) => claims(s), 'unknown-kid'],
    ['an expired token', (s) => claims(s, { iat: now() - 7200, exp: now() - 3600 })],
    ['a second audience without azp', (s) => claims(s, { aud: [HOSTILE_CLIENT.clientId, 'another-client'] })],
    ['a second audience with another azp', (s) => claims(s, { aud: [HOSTILE_CLIENT.clientId, 'x'], azp: 'x' })],
  ]
  for (const [what, make, how] of refused)
    run(`an ID token with ${what}: provider_error, no session, no account`, async () => {
      const h = setup()
      const res = await attempt(h, make, how)
      expect(await landed(res)).toBe('/back?error=provider_error&provider=bad')
      expect(refreshCookie(res)).toBeUndefined()
      expect(await opened.count('auth_users')).toBe(0)
    })

  run('RFC 9207: advertised, a callback without iss or with another iss is provider_error', async () => {
    const h = setup()
    const missing = await attempt(
      h,
      (s) => claims(s),
      'signed',
      (s) => `code=c0de&state=${s.state}`,
    )
    expect(await landed(missing)).toBe('/back?error=provider_error&provider=bad')
    const wrong = await attempt(
      h,
      (s) => claims(s),
      'signed',
      (s) => `code=c0de&state=${s.state}&iss=https%3A%2F%2Fevil.example`,
    )
    expect(await landed(wrong)).toBe('/back?error=provider_error&provider=bad')
  })

  run('email_verified "true" as a string is not verified: no link by email, an unverified new account', async () => {
    const h = setup({ linkByEmail: true })
    await h.signup('person@example.com')
    const exists = await attempt(h, (s) => claims(s, { email_verified: 'true' }))
    expect(await landed(exists)).toBe('/back?error=account_exists&provider=bad')
    const fresh = await attempt(h, (s) => claims(s, { sub: 'person-2', email: 'new@example.com', email_verified: 'false' }))
    expect(await landed(fresh)).toBe('/back')
    expect((await opened.store.findUserByEmail('new@example.com'))?.user.emailVerified).toBe(false)
  })

  run('signUp: false: an identity without an account is signup_disabled, nothing created', async () => {
    const h = setup({ signUp: false })
    expect(await landed(await attempt(h, (s) => claims(s)))).toBe('/back?error=signup_disabled&provider=bad')
    expect(await opened.count('auth_users')).toBe(0)
  })

  run('no email anywhere: email_required; the userinfo of another sub is provider_error', async () => {
    const h = setup()
    idp.setUserinfo({ sub: 'person-1' })
    const none = await attempt(h, (s) => claims(s, { email: undefined, email_verified: undefined }))
    expect(await landed(none)).toBe('/back?error=email_required&provider=bad')
    idp.setUserinfo({ sub: 'somebody-else', email: 'person@example.com', email_verified: true })
    const other = await attempt(h, (s) => claims(s, { email: undefined, email_verified: undefined }))
    expect(await landed(other)).toBe('/back?error=provider_error&provider=bad')
  })

  run('the provider’s tokens reach no log line and no column in clear; kept ones open through the library', async () => {
    const h = setup({ keepTokens: true })
    const res = await attempt(h, (s) => claims(s))
    expect(await landed(res)).toBe('/back')
    for (const bad of refused.slice(0, 3)) await attempt(h, bad[1])
    const [row] = await opened.rows('auth_identities')
    const sealed = String(row?.sealed_tokens)
    expect(sealed).toMatch(/^v2\./)
    const user = await opened.store.findUserByEmail('person@example.com')
    const kept = await h.auth.providerTokens(user?.user.id ?? '', 'bad')
    expect(kept?.accessToken).toMatch(/^at-/)
    expect(kept?.refreshToken).toMatch(/^rt-/)
    expect(sealed).not.toContain(kept?.accessToken)
    const everything = JSON.stringify([h.logs, h.events, h.allMails, await opened.rows('auth_identities')])
    expect(everything).not.toContain(kept?.accessToken)
    expect(everything).not.toContain(kept?.refreshToken)
    expect(everything).not.toMatch(/eyJ[\w-]+\.eyJ/)
  })
})
