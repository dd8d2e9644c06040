/**
 * A squatter's identity (docs/guide/social-sign-in.md#who-the-identity-is): an account made
 * through a provider that did not vouch for the email is unverified, and its identity was linked
 * without the mailbox; the owner's first proof of the mailbox (a reset, a sign-in by email, a
 * mailed confirmation without a session) removes it with the rest, so the squatter keeps nothing.
 */
import type { JWTPayload } from 'jose'
import { afterAll, beforeAll, expect } from 'vitest'
import { harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { HOSTILE_CLIENT, startHostileProvider } from '../../test/hostile-provider.js'
import { begin, callback, landed } from '../../test/oauth-flow.js'
import { onEveryStore } from '../../test/stores.js'

let idp: Awaited<ReturnType<typeof startHostileProvider>>
beforeAll(async () => {
  idp = await startHostileProvider()
})
afterAll(async () => {
  await idp.close()
})

onEveryStore('a squatter’s identity on $name', ({ opened, run }) => {
  const setup = () =>
    harness({ store: opened().store, providers: [{ id: 'bad', name: 'Hostile', issuer: idp.issuer, ...HOSTILE_CLIENT }] })
  type H = ReturnType<typeof setup>
  const now = () => Math.floor(Date.now() / 1000)
  const signIn = async (h: H, more: JWTPayload = {}) => {
    const s = await begin(h, 'bad')
    idp.respond({
      iss: idp.issuer,
      aud: HOSTILE_CLIENT.clientId,
      sub: 'squatter',
      nonce: s.nonce,
      iat: now(),
      exp: now() + 300,
      email: 'owner@example.com',
      email_verified: false,
      ...more,
    })
    return landed(await callback(h, 'bad', `code=c&state=${s.state}&iss=${encodeURIComponent(idp.issuer)}`, s.cookie))
  }
  const squat = async (h: H) => {
    expect(await signIn(h)).toBe('/back')
    const found = await opened().store.findUserByEmail('owner@example.com')
    expect(found?.user.emailVerified).toBe(false)
    expect(await opened().count('auth_identities')).toBe(1)
    return found?.user.id ?? ''
  }

  run('the owner’s reset removes it: the squatter cannot sign in to the account again', async () => {
    const h = setup()
    const userId = await squat(h)
    await h.request('POST', '/auth/forgot-password', { json: { email: 'owner@example.com' } })
    const { token } = await h.mailOf('reset-password', 'owner@example.com')
    expect((await h.request('POST', '/auth/reset-password', { json: { token, newPassword: PASSWORD } })).status).toBe(204)
    expect(await opened().store.listIdentities(userId)).toEqual([])
    expect(await signIn(h)).toBe('/back?error=account_exists&provider=bad')
    expect((await h.login('owner@example.com')).status).toBe(200)
  })

  run('the owner’s first sign-in by email removes it', async () => {
    const h = setup()
    const userId = await squat(h)
    expect((await h.request('POST', '/auth/email-sign-in', { json: { email: 'owner@example.com' } })).status).toBe(202)
    const { token } = await h.mailOf('sign-in', 'owner@example.com')
    expect((await h.request('POST', '/auth/email-sign-in/verify', { json: { token } })).status).toBe(200)
    expect(await opened().store.listIdentities(userId)).toEqual([])
    expect(await signIn(h)).toBe('/back?error=account_exists&provider=bad')
  })

  run('the owner’s mailed confirmation, from a browser without the squatter’s session, removes it', async () => {
    const h = setup()
    const userId = await squat(h)
    // The squatter asks for the mail (from their session): it goes to the owner's address.
    const s = await begin(h, 'bad')
    idp.respond({
      iss: idp.issuer,
      aud: HOSTILE_CLIENT.clientId,
      sub: 'squatter',
      nonce: s.nonce,
      iat: now(),
      exp: now() + 300,
      email: 'owner@example.com',
    })
    const back = await callback(h, 'bad', `code=c&state=${s.state}&iss=${encodeURIComponent(idp.issuer)}`, s.cookie)
    const refreshed = await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${refreshCookie(back)}` } })
    const { accessToken } = (await refreshed.json()) as { accessToken: string }
    const resent = await h.request('POST', '/auth/resend-verification', { headers: { Authorization: `Bearer ${accessToken}` } })
    expect(resent.status).toBe(202)
    const { token } = await h.mailOf('verify-email', 'owner@example.com')
    const verified = await h.request('POST', '/auth/verify-email', { json: { token } })
    expect(verified.status).toBe(200)
    expect(await opened().store.listIdentities(userId)).toEqual([])
    expect(await signIn(h)).toBe('/back?error=account_exists&provider=bad')
  })

  run('an identity linked by a verified account outlives the reset', async () => {
    const h = setup()
    const userId = await squat(h)
    // The owner proves the mailbox by email; then links the provider (their own identity) from a fresh session.
    expect((await h.request('POST', '/auth/email-sign-in', { json: { email: 'owner@example.com' } })).status).toBe(202)
    const { token } = await h.mailOf('sign-in', 'owner@example.com')
    const signedIn = await h.request('POST', '/auth/email-sign-in/verify', { json: { token } })
    const { accessToken } = (await signedIn.json()) as { accessToken: string }
    const linkStart = await h.request('POST', '/auth/oauth/bad/link', {
      json: {},
      headers: { Authorization: `Bearer ${accessToken}` },
    })
    const url = new URL(((await linkStart.json()) as { url: string }).url)
    const cookie = (linkStart.headers.getSetCookie().find((l) => l.startsWith('oauth_flow=')) ?? '').split(';')[0]
    idp.respond({
      iss: idp.issuer,
      aud: HOSTILE_CLIENT.clientId,
      sub: 'owner-at-idp',
      nonce: url.searchParams.get('nonce') ?? '',
      iat: now(),
      exp: now() + 300,
      email: 'owner@example.com',
      email_verified: true,
    })
    const q = `code=c&state=${url.searchParams.get('state')}&iss=${encodeURIComponent(idp.issuer)}`
    expect(await landed(await callback(h, 'bad', q, cookie))).toBe('/?linked=bad')
    await h.request('POST', '/auth/forgot-password', { json: { email: 'owner@example.com' } })
    const reset = await h.mailOf('reset-password', 'owner@example.com')
    const res = await h.request('POST', '/auth/reset-password', { json: { token: reset.token, newPassword: PASSWORD } })
    expect(res.status).toBe(204)
    expect((await opened().store.listIdentities(userId)).map((i) => i.subject)).toEqual(['owner-at-idp'])
  })
})
