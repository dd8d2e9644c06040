/**
 * POST /auth/verify-email and the password set before the mailbox was proven
 * (docs/reference/lifecycle.md#the-first-proof-of-the-mailbox), on both stores: the password's
 * holder keeps it (a live session of the account by its access token or its refresh cookie, or
 * the password in the body); anyone else's press settles the account as a first sign-in by email.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

type H = ReturnType<typeof harness>
type Account = Awaited<ReturnType<H['signup']>>

const verify = (h: H, json: Record<string, unknown>, headers: Record<string, string> = {}, ip?: string) =>
  h.request('POST', '/auth/verify-email', { json, headers, ...(ip ? { ip } : {}) })

describe.each(STORES)('verify-email and the password set before the proof, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)

  /** A squatter's account on ada's address, and the token of the mail that went to ada. */
  const squatted = async () => {
    const h = harness({ store: opened.store })
    const squatter = await h.signup('ada@example.com')
    const { token } = await h.mailOf('verify-email', 'ada@example.com')
    return { h, squatter, token }
  }
  const me = async (h: H, account: Account) => (await h.request('GET', '/auth/me', { headers: account.bearer })).status
  const refresh = async (h: H, account: Account) =>
    (await h.request('POST', '/auth/refresh', { headers: cookieHeader(account.refresh) })).status
  const emailVerified = async (_: H, account: Account) => (await opened.store.findUserById(account.user.id))?.user.emailVerified

  /** The holder kept everything: 204, the password signs in, the session lives. */
  const kept = async (h: H, res: Response, account: Account) => {
    expect(res.status).toBe(204)
    expect(await emailVerified(h, account)).toBe(true)
    expect((await h.login()).status).toBe(200)
    expect(await me(h, account)).toBe(200)
  }

  /** The account was settled: 200, the password and every session gone. */
  const settled = async (h: H, res: Response, account: Account) => {
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ passwordRemoved: true })
    expect(await emailVerified(h, account)).toBe(true)
    expect((await h.login()).status).toBe(401)
    expect(await me(h, account)).toBe(401)
    expect(await refresh(h, account)).toBe(401)
    expect(await opened.store.listSessions(account.user.id)).toEqual([])
  }

  run('keeps the password for a request with a live session of the account, by its access token', async () => {
    const { h, squatter, token } = await squatted()
    await kept(h, await verify(h, { token }, squatter.bearer), squatter)
  })

  run('keeps it for the refresh cookie alone, which is only looked at: not rotated, not spent', async () => {
    const { h, squatter, token } = await squatted()
    const res = await verify(h, { token }, cookieHeader(squatter.refresh))
    expect(refreshCookie(res)).toBeUndefined()
    await kept(h, res, squatter)
    // The same value still refreshes: nothing spent it.
    expect(await refresh(h, squatter)).toBe(200)
  })

  run('keeps it for the right password in the body, without a session', async () => {
    const { h, squatter, token } = await squatted()
    await kept(h, await verify(h, { token, password: PASSWORD }), squatter)
  })

  run('refuses a wrong password with 400, and the token stays usable', async () => {
    const { h, squatter, token } = await squatted()
    const wrong = await verify(h, { token, password: 'not the password at all' })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toMatchObject({ errors: [{ path: 'password', code: 'wrong_password' }] })
    expect(await emailVerified(h, squatter)).toBe(false)
    expect(await me(h, squatter)).toBe(200)
    await settled(h, await verify(h, { token }), squatter)
  })

  run('settles the account when the request carries nothing: 200, the password and every session gone', async () => {
    const { h, squatter, token } = await squatted()
    const second = await h.login()
    expect(second.status).toBe(200)
    await settled(h, await verify(h, { token }), squatter)
    await h.auth.settled()
    const userId = squatter.user.id
    expect(h.events.filter((e) => e.type === 'email.verified')).toEqual([expect.objectContaining({ userId })])
    expect(h.events.filter((e) => e.type === 'session.revoked')).toHaveLength(2)
    // The mailbox's owner signs in by email from now on.
    await h.request('POST', '/auth/email-sign-in', { json: { email: 'ada@example.com' } })
    const { token: link } = await h.mailOf('sign-in', 'ada@example.com')
    expect((await h.request('POST', '/auth/email-sign-in/verify', { json: { token: link } })).status).toBe(200)
  })

  run("counts another account's session, a refused access token and a cross-site cookie as none", async () => {
    const proofs = (bob: Account, squatter: Account): Record<string, string>[] => [
      bob.bearer,
      cookieHeader(bob.refresh),
      { Authorization: `Bearer ${squatter.accessToken.slice(0, -2)}xx` },
      { ...cookieHeader(squatter.refresh), Origin: 'https://elsewhere.example' },
    ]
    for (let i = 0; i < 4; i++) {
      const { h, squatter, token } = await squatted()
      const bob = await h.signup('bob@example.com')
      await settled(h, await verify(h, { token }, proofs(bob, squatter)[i]), squatter)
      // Bob's own session is untouched.
      expect(await me(h, bob)).toBe(200)
      await opened.close()
      opened = await open()
    }
  })

  run('counts an expired access token as none', async () => {
    const { h, squatter, token } = await squatted()
    await h.request('POST', '/auth/refresh', { headers: cookieHeader(squatter.refresh) })
    h.clock.advance(901_000)
    const res = await verify(h, { token }, squatter.bearer)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ passwordRemoved: true })
  })

  run('removes nothing from an account proven meanwhile (a reset): 204, the new password stays', async () => {
    const { h, token } = await squatted()
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    const { token: reset } = await h.mailOf('reset-password', 'ada@example.com')
    const NEW = 'the owner set this one'
    expect((await h.request('POST', '/auth/reset-password', { json: { token: reset, newPassword: NEW } })).status).toBe(204)
    expect((await verify(h, { token })).status).toBe(204)
    expect((await h.login('ada@example.com', NEW)).status).toBe(200)
  })

  run('limits passwords per account (10 per 15 minutes) and per address (100); no password counts on neither', async () => {
    const { h, squatter, token } = await squatted()
    for (let i = 0; i < 10; i++)
      expect((await verify(h, { token, password: `wrong password ${i}` }, {}, `198.51.100.${i}`)).status).toBe(400)
    const limited = await verify(h, { token, password: PASSWORD }, {}, '198.51.100.99')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await emailVerified(h, squatter)).toBe(false)
    // The owner's limit on the token's email is counted too (as reset-password); after the window the token still works.
    h.clock.advance(901_000)
    expect((await verify(h, { token }, cookieHeader(squatter.refresh), '198.51.100.100')).status).toBe(204)
  })
})
