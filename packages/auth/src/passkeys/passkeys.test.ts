/**
 * Passkeys over HTTP (docs/reference/passkeys.md), on both stores, with a software authenticator
 * (ES256 and Ed25519) that makes real WebAuthn responses: registration and discoverable sign-in,
 * user verification as a complete sign-in and its absence as one factor, and every refusal:
 * wrong origin, wrong rpId, another challenge, reused and expired challenges, a bad signature, a
 * counter that goes back, another user's passkey, the last way to sign in, parallel sign-ins; and
 * the sweep deleting abandoned challenges.
 */
import { decodeJwt } from 'jose'
import * as OTPAuth from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Algorithm, type CreationOptions, FLAGS, type RequestOptions, softAuthenticator } from '../../test/authenticator.js'
import { harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { accountEvents } from '../account-events.js'

type H = ReturnType<typeof harness>
type Json = Record<string, unknown>
const ORIGIN = 'http://localhost:3000'
const PASSKEYS = { rpId: 'localhost', rpName: 'Latchkey test', origins: [ORIGIN] }
const json = async (res: Response) => (await res.json()) as Json
/** The methods (RFC 8176) an access token says its session was proven with. */
const amrOf = async (res: Response) => decodeJwt(((await res.clone().json()) as { accessToken: string }).accessToken).amr

describe.each(STORES)('passkeys over HTTP on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const setup = (overrides: Parameters<typeof harness>[0] = {}) =>
    harness({ store: opened.store, passkeys: PASSKEYS, ...overrides })
  const run = it.skipIf(skip !== null)

  /** Signs up, then registers a passkey made by `authenticator`. */
  const withPasskey = async (h: H, algorithm: Algorithm = 'ES256', email = 'ada@example.com') => {
    const user = await h.signup(email)
    await h.verifyEmail(email)
    const authenticator = softAuthenticator({ algorithm, origin: ORIGIN })
    const res = await h.request('POST', '/auth/passkeys/register/options', { headers: user.bearer })
    expect(res.status).toBe(200)
    const options = (await res.json()) as CreationOptions
    const registered = await h.request('POST', '/auth/passkeys/register', {
      json: { response: await authenticator.create(options), emailCode: await h.emailCode(email), name: 'Laptop' },
      headers: user.bearer,
    })
    expect(registered.status).toBe(201)
    return { ...user, authenticator, passkey: await json(registered) }
  }
  /**
   * Turns two-factor authentication on for the holder of `bearer` (the address verified);
   * `code(steps)` is the TOTP code `steps` steps from the frozen clock.
   */
  const turnOnTwoFactor = async (h: H, bearer: Record<string, string>, email = 'ada@example.com') => {
    const s = await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: bearer })
    expect(s.status).toBe(200)
    const totp = OTPAuth.URI.parse(((await s.json()) as { uri: string }).uri) as OTPAuth.TOTP
    const code = (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * 30_000 })
    const enable = await h.request('POST', '/auth/two-factor/enable', {
      json: { code: code(), emailCode: await h.emailCode(email) },
      headers: bearer,
    })
    expect(enable.status).toBe(200)
    // The code just spent is spent for its window: the next one is a step ahead.
    h.clock.advance(30_000)
    return { code, recoveryCodes: ((await enable.json()) as { recoveryCodes: string[] }).recoveryCodes }
  }
  const loginOptions = async (h: H, ip?: string) => {
    const res = await h.request('POST', '/auth/passkeys/login/options', ip ? { ip } : {})
    expect(res.status).toBe(200)
    return (await res.json()) as { challengeId: string; options: RequestOptions; expiresIn: number }
  }
  const signIn = (h: H, challengeId: string, response: unknown, ip?: string) =>
    h.request('POST', '/auth/passkeys/login', { json: { challengeId, response }, ...(ip ? { ip } : {}) })

  for (const algorithm of ['ES256', 'Ed25519'] as const)
    run(`registers a ${algorithm} passkey and signs in with it (user verified: tokens and the cookie)`, async () => {
      const h = setup()
      const ada = await withPasskey(h, algorithm)
      expect(Object.keys(ada.passkey).sort()).toEqual(['backedUp', 'createdAt', 'id', 'lastUsedAt', 'name', 'transports'])
      expect(ada.passkey).toMatchObject({ name: 'Laptop', backedUp: true, lastUsedAt: null, transports: ['internal', 'hybrid'] })
      const { challengeId, options, expiresIn } = await loginOptions(h)
      expect(expiresIn).toBe(300)
      expect(options.allowCredentials ?? []).toEqual([])
      // At least 128 bits.
      expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{22,}$/)
      const res = await signIn(h, challengeId, await ada.authenticator.get(options))
      expect(res.status).toBe(200)
      const body = await json(res)
      expect(body).toMatchObject({ tokenType: 'Bearer', user: { email: 'ada@example.com' } })
      // A user-verified passkey: the key, and the user's PIN or biometrics, two factors.
      expect(decodeJwt(body.accessToken as string).amr).toEqual(['hwk', 'user', 'mfa'])
      expect(refreshCookie(res)).toMatch(/\.[A-Za-z0-9_-]{40,}$/)
      const me = await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${body.accessToken}` } })
      expect(me.status).toBe(200)
      const [listed] = (await json(await h.request('GET', '/auth/passkeys', { headers: ada.bearer }))) as unknown as Json[]
      expect(listed).toMatchObject({ id: ada.passkey.id, lastUsedAt: h.clock.now().toISOString() })
      await h.auth.settled()
      expect(h.events.map((e) => e.type)).toEqual(expect.arrayContaining(['passkey.added', 'login.succeeded']))
      expect(h.allMails.map((m) => m.kind)).toContain('passkey-added')
    })

  run(
    'the creation options ask for a resident key, prefer user verification, want no attestation and exclude the user’s passkeys',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      const res = await h.request('POST', '/auth/passkeys/register/options', { headers: ada.bearer })
      const options = (await res.json()) as CreationOptions
      expect(options.rp).toEqual({ id: 'localhost', name: 'Latchkey test' })
      expect(options.attestation).toBe('none')
      expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' })
      expect(options.pubKeyCredParams.map((p) => p.alg)).toEqual([-7, -8, -257])
      expect(options.excludeCredentials?.map((c) => c.id)).toEqual([ada.passkey.id])
      expect((await h.request('POST', '/auth/passkeys/register/options')).status).toBe(401)
    },
  )

  run(
    'registration refuses a wrong origin, a wrong rpId, another challenge, another user’s challenge and a reused one (400)',
    async () => {
      const h = setup()
      const ada = await h.signup('ada@example.com')
      const bob = await h.signup('bob@example.com')
      await h.verifyEmail('ada@example.com')
      await h.verifyEmail('bob@example.com')
      const authenticator = softAuthenticator({ origin: ORIGIN })
      const options = async (bearer = ada.bearer) =>
        (await (await h.request('POST', '/auth/passkeys/register/options', { headers: bearer })).json()) as CreationOptions
      const register = async (response: unknown, bearer = ada.bearer) =>
        h.request('POST', '/auth/passkeys/register', { json: { response, emailCode: await h.emailCode() }, headers: bearer })
      for (const ceremony of [
        { origin: 'http://evil.test' },
        { rpId: 'evil.test' },
        { challenge: 'A'.repeat(43) },
        { type: 'webauthn.get' },
      ]) {
        const res = await register(await authenticator.create(await options(), ceremony))
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toContain('application/problem+json')
        expect(await json(res)).toMatchObject({ status: 400, type: 'urn:latchkey:problem:invalid-passkey' })
      }
      // Bob's challenge, answered in Ada's name: refused, and it is spent.
      const bobs = await options(bob.bearer)
      expect((await register(await authenticator.create(bobs))).status).toBe(400)
      // A right one works once.
      const right = await authenticator.create(await options())
      expect((await register(right)).status).toBe(201)
      expect((await register(right)).status).toBe(400)
      expect(await json(await h.request('GET', '/auth/passkeys', { headers: ada.bearer }))).toHaveLength(1)
    },
  )

  run(
    'an unverified account cannot add a passkey (403); a wrong mailed code is 400 and counts; a refused response leaves the code usable',
    async () => {
      const h = setup()
      const ada = await h.signup('ada@example.com')
      const unverified = await h.request('POST', '/auth/passkeys/register/options', { headers: ada.bearer })
      expect(unverified.status).toBe(403)
      expect(await json(unverified)).toMatchObject({ type: 'urn:latchkey:problem:email-unverified' })
      await h.auth.settled()
      expect(h.allMails.filter((m) => m.kind === 'add-credential')).toEqual([])
      await h.verifyEmail()
      const authenticator = softAuthenticator({ origin: ORIGIN })
      const options = async () =>
        (await (await h.request('POST', '/auth/passkeys/register/options', { headers: ada.bearer })).json()) as CreationOptions
      const register = (response: unknown, emailCode: string) =>
        h.request('POST', '/auth/passkeys/register', { json: { response, emailCode }, headers: ada.bearer })
      // A response from another origin: 400, and the mailed code still works afterwards.
      const first = await options()
      const code = await h.emailCode()
      expect((await h.mailOf('add-credential', 'ada@example.com')).credential).toBe('passkey')
      expect((await register(await authenticator.create(first, { origin: 'http://evil.test' }), code)).status).toBe(400)
      // (A new options request mails a new code; the old one dies.)
      const second = await options()
      const fresh = await h.emailCode()
      const refused = await register(await authenticator.create(second), fresh === '000000' ? '111111' : '000000')
      expect(refused.status).toBe(400)
      expect(await json(refused)).toMatchObject({ type: 'urn:latchkey:problem:invalid-email-code' })
      const third = await options()
      expect((await register(await authenticator.create(third), await h.emailCode())).status).toBe(201)
      expect(await json(await h.request('GET', '/auth/passkeys', { headers: ada.bearer }))).toHaveLength(1)
    },
  )

  run(
    'sign-in refuses, with one 401 body: an unknown credential, a wrong origin or rpId, a bad signature, used and expired challenges',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      const bodies: string[] = []
      const refused = async (res: Response) => {
        expect(res.status).toBe(401)
        expect(res.headers.get('www-authenticate')).toBe('Bearer')
        expect(res.headers.getSetCookie()).toEqual([])
        bodies.push(await res.text())
      }
      const stranger = softAuthenticator({ origin: ORIGIN })
      await stranger.create({
        ...((await (
          await h.request('POST', '/auth/passkeys/register/options', { headers: ada.bearer })
        ).json()) as CreationOptions),
      })
      let o = await loginOptions(h)
      await refused(await signIn(h, o.challengeId, await stranger.get(o.options)))
      o = await loginOptions(h)
      await refused(await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { origin: 'http://evil.test' })))
      o = await loginOptions(h)
      await refused(await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { rpId: 'evil.test' })))
      o = await loginOptions(h)
      await refused(await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { tamper: true })))
      // The assertion of one challenge sent with another's id.
      const other = await loginOptions(h)
      o = await loginOptions(h)
      await refused(await signIn(h, other.challengeId, await ada.authenticator.get(o.options)))
      // Used: the challenge of a success does not work twice.
      o = await loginOptions(h)
      expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options))).status).toBe(200)
      await refused(await signIn(h, o.challengeId, await ada.authenticator.get(o.options)))
      // Expired after 5 minutes.
      o = await loginOptions(h)
      h.clock.advance(300_000)
      await refused(await signIn(h, o.challengeId, await ada.authenticator.get(o.options)))
      expect(new Set(bodies).size).toBe(1)
      expect(JSON.parse(bodies[0] as string)).toMatchObject({ status: 401, type: 'urn:latchkey:problem:passkey-failed' })
    },
  )

  run('abandoned ceremonies do not pile up: with no ceremony after them, the sweep deletes them once they expire', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    // A burst of sign-ins begun and never finished, one finished, and no ceremony since (storing a
    // challenge clears the dead ones: the registration's is already gone).
    for (let i = 0; i < 20; i++) await loginOptions(h, `203.0.113.${i}`)
    const o = await loginOptions(h)
    expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options))).status).toBe(200)
    expect(await opened.count('auth_passkey_challenges')).toBe(21)
    // The spent one goes at once; the 20 can still be answered for their 5 minutes.
    expect(await h.auth.prune()).toMatchObject({ passkeyChallenges: 1 })
    expect(await opened.count('auth_passkey_challenges')).toBe(20)
    h.clock.advance(300_000)
    expect(await h.auth.prune()).toMatchObject({ passkeyChallenges: 20 })
    expect(await opened.count('auth_passkey_challenges')).toBe(0)
  })

  run('of 10 parallel registrations with one response, exactly one stores the passkey', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail()
    const authenticator = softAuthenticator({ origin: ORIGIN })
    const options = (await (
      await h.request('POST', '/auth/passkeys/register/options', { headers: ada.bearer })
    ).json()) as CreationOptions
    const body = { response: await authenticator.create(options), emailCode: await h.emailCode() }
    const statuses = await Promise.all(
      Array.from(
        { length: 10 },
        async () => (await h.request('POST', '/auth/passkeys/register', { json: body, headers: ada.bearer })).status,
      ),
    )
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 400)).toHaveLength(9)
    expect(await json(await h.request('GET', '/auth/passkeys', { headers: ada.bearer }))).toHaveLength(1)
    // Nothing of the ceremony reaches the log (only the harness's note on its fast hasher).
    expect(h.logs.filter((line) => !line.includes('custom hasher'))).toEqual([])
  })

  run('a signature counter that does not increase refuses the sign-in and emits passkey.counter_regressed', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    let o = await loginOptions(h)
    expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { counter: 5 }))).status).toBe(200)
    o = await loginOptions(h)
    expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { counter: 5 }))).status).toBe(401)
    o = await loginOptions(h)
    expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { counter: 3 }))).status).toBe(401)
    await h.auth.settled()
    const regressed = h.events.filter((e) => e.type === 'passkey.counter_regressed')
    expect(regressed).toHaveLength(2)
    expect(regressed[0]).toMatchObject({ userId: ada.user.id, passkeyId: ada.passkey.id })
    o = await loginOptions(h)
    expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { counter: 6 }))).status).toBe(200)
  })

  run('of 10 parallel sign-ins with one challenge, exactly one succeeds', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    const o = await loginOptions(h)
    const assertion = await ada.authenticator.get(o.options)
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => (async () => (await signIn(h, o.challengeId, assertion)).status)()),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401)).toHaveLength(9)
  })

  run(
    'without user verification a passkey is one factor: a two-factor account gets the 202; with it, a complete sign-in',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      await turnOnTwoFactor(h, ada.bearer)
      let o = await loginOptions(h)
      const onlyPresent = await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { flags: FLAGS.UP }))
      expect(onlyPresent.status).toBe(202)
      // No refresh cookie: only the device cookie, so the second step finds the same browser.
      expect(onlyPresent.headers.getSetCookie().map((line) => line.split('=')[0])).toEqual(['device'])
      expect(await json(onlyPresent)).toMatchObject({ twoFactorRequired: true, expiresIn: 300 })
      o = await loginOptions(h)
      expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options))).status).toBe(200)
      // Not even user presence: refused.
      o = await loginOptions(h)
      expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { flags: 0 }))).status).toBe(401)
    },
  )

  run(
    'a passkey answers the two-factor challenge of a password sign-in; only its own options, only the account’s passkeys',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      const bob = await withPasskey(h, 'Ed25519', 'bob@example.com')
      await turnOnTwoFactor(h, ada.bearer)
      const challenged = async () => {
        const res = await h.login('ada@example.com', PASSWORD)
        expect(res.status).toBe(202)
        return (await res.json()) as { challenge: string; methods: string[]; passkeyOptions: RequestOptions }
      }
      const verify = (json: unknown) => h.request('POST', '/auth/two-factor/verify', { json })
      const first = await challenged()
      expect(first.methods).toEqual(['totp', 'recovery', 'passkey'])
      expect(first.passkeyOptions.allowCredentials?.map((c) => c.id)).toEqual([ada.passkey.id])
      // Bob's passkey, answering Ada's options: refused, and it counts as a wrong answer.
      expect(
        (await verify({ challenge: first.challenge, passkey: await bob.authenticator.get(first.passkeyOptions) })).status,
      ).toBe(401)
      // Ada's passkey answering the options of another challenge: refused.
      const second = await challenged()
      expect(
        (await verify({ challenge: first.challenge, passkey: await ada.authenticator.get(second.passkeyOptions) })).status,
      ).toBe(401)
      // (That spent the second one's WebAuthn challenge: its own assertion no longer counts either.)
      const late = await ada.authenticator.get(second.passkeyOptions)
      expect((await verify({ challenge: second.challenge, passkey: late })).status).toBe(401)
      // Both a code and a passkey, or neither: 400.
      const third = await challenged()
      const assertion = await ada.authenticator.get(third.passkeyOptions)
      expect((await verify({ challenge: third.challenge, code: '123456', passkey: assertion })).status).toBe(400)
      expect((await verify({ challenge: third.challenge })).status).toBe(400)
      const done = await verify({ challenge: third.challenge, passkey: assertion })
      expect(done.status).toBe(200)
      expect(await amrOf(done)).toEqual(['pwd', 'hwk', 'mfa'])
      expect(await json(done)).toMatchObject({ tokenType: 'Bearer', user: { email: 'ada@example.com' } })
      expect(refreshCookie(done)).toBeTruthy()
      // Single use.
      expect((await verify({ challenge: third.challenge, passkey: assertion })).status).toBe(401)
    },
  )

  run('a passkey without user verification on an account without a second factor is one factor: amr hwk', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    const o = await loginOptions(h)
    const res = await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { flags: FLAGS.UP }))
    expect(res.status).toBe(200)
    expect(await amrOf(res)).toEqual(['hwk'])
  })

  run('adding and removing a passkey need a fresh session: a stale one gets 401 reauthentication-required', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    h.clock.advance(301_000)
    const stale = async (res: Response) => {
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:reauthentication-required', maxAge: 300 })
    }
    // The access token is still valid (15 minutes); the session's proof is not fresh.
    const bearer = ada.bearer
    await stale(await h.request('POST', '/auth/passkeys/register/options', { headers: bearer }))
    await stale(
      await h.request('POST', '/auth/passkeys/register', { json: { response: {}, emailCode: '000000' }, headers: bearer }),
    )
    await stale(await h.request('DELETE', `/auth/passkeys/${ada.passkey.id}`, { headers: bearer }))
    // Listing needs no fresh session; the passkey is still there.
    expect((await h.request('GET', '/auth/passkeys', { headers: bearer })).status).toBe(200)
    // A re-authentication makes the session fresh again.
    expect((await h.request('POST', '/auth/reauth', { json: { password: PASSWORD }, headers: bearer })).status).toBe(200)
    expect((await h.request('DELETE', `/auth/passkeys/${ada.passkey.id}`, { headers: bearer })).status).toBe(204)
  })

  run('lists, renames and removes only the owner’s passkeys; another user’s id is 404; a notice is mailed', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    const bob = await withPasskey(h, 'Ed25519', 'bob@example.com')
    const path = `/auth/passkeys/${ada.passkey.id}`
    expect((await h.request('PATCH', path, { json: { name: 'Mine now' }, headers: bob.bearer })).status).toBe(404)
    expect((await h.request('DELETE', path, { headers: bob.bearer })).status).toBe(404)
    expect((await h.request('PATCH', path, { json: { name: '' }, headers: ada.bearer })).status).toBe(400)
    const renamed = await h.request('PATCH', path, { json: { name: ' Phone ' }, headers: ada.bearer })
    expect(renamed.status).toBe(200)
    expect(await json(renamed)).toMatchObject({ id: ada.passkey.id, name: 'Phone' })
    expect(
      ((await json(await h.request('GET', '/auth/passkeys', { headers: bob.bearer }))) as unknown as Json[]).map((p) => p.id),
    ).toEqual([bob.passkey.id])
    expect((await h.request('DELETE', path, { headers: ada.bearer })).status).toBe(204)
    expect((await h.request('DELETE', path, { headers: ada.bearer })).status).toBe(404)
    await h.auth.settled()
    expect(h.allMails.filter((m) => m.kind === 'passkey-removed')).toEqual([
      { kind: 'passkey-removed', to: 'ada@example.com', name: 'Phone' },
    ])
    expect(h.events.filter((e) => e.type === 'passkey.removed')).toMatchObject([
      { userId: ada.user.id, passkeyId: ada.passkey.id },
    ])
    // The removed passkey no longer signs in.
    const o = await loginOptions(h)
    expect((await signIn(h, o.challengeId, await ada.authenticator.get(o.options))).status).toBe(401)
  })

  run('removing the last way to sign in (no password, no other passkey) is 409', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    // An account without a password (as sign-in by email leaves one): its only passkey stays.
    await opened.store.replacePassword({
      revoke: accountEvents['password-changed'],
      userId: ada.user.id,
      passwordHash: '',
      credentialsVersion: 0,
      keepSessionId: null,
    })
    const o = await loginOptions(h)
    const session = await json(await signIn(h, o.challengeId, await ada.authenticator.get(o.options)))
    const bearer = { Authorization: `Bearer ${session.accessToken}` }
    const res = await h.request('DELETE', `/auth/passkeys/${ada.passkey.id}`, { headers: bearer })
    expect(res.status).toBe(409)
    expect(await json(res)).toMatchObject({ type: 'urn:latchkey:problem:last-sign-in-method' })
    expect(await json(await h.request('GET', '/auth/passkeys', { headers: bearer }))).toHaveLength(1)
  })

  const reauth = (h: H, token: string, json: unknown) =>
    h.request('POST', '/auth/reauth', { json, headers: { Authorization: `Bearer ${token}` } })
  /** A passkey proof for reauth: an assertion by `authenticator` answering new login options. */
  const passkeyProof = async (h: H, authenticator: ReturnType<typeof softAuthenticator>, ceremony = {}) => {
    const o = await loginOptions(h)
    return { challengeId: o.challengeId, response: await authenticator.get(o.options, ceremony) }
  }
  const claims = async (res: Response) =>
    decodeJwt(((await res.clone().json()) as { accessToken: string }).accessToken) as {
      amr: string[]
      auth_time: number
      sid: string
    }

  run(
    'reauth by one of the caller’s passkeys freshens the session (hwk,user,mfa; hwk without user verification); anything else is 400',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      const bob = await withPasskey(h, 'Ed25519', 'bob@example.com')
      h.clock.advance(600_000)
      const refused = async (json: unknown) => {
        const res = await reauth(h, ada.accessToken, json)
        expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400)
        expect(res.headers.getSetCookie()).toEqual([])
        return json as Json
      }
      // Another user's passkey is a wrong proof, like a wrong password: 400, and the session stays stale.
      await refused({ passkey: await passkeyProof(h, bob.authenticator) })
      expect(await json(await reauth(h, ada.accessToken, { passkey: await passkeyProof(h, bob.authenticator) }))).toMatchObject({
        status: 400,
        type: 'urn:latchkey:problem:invalid-passkey',
      })
      await refused({ passkey: await passkeyProof(h, ada.authenticator, { origin: 'http://evil.test' }) })
      await refused({ passkey: await passkeyProof(h, ada.authenticator, { tamper: true }) })
      // Not an answer to login options: a challenge of its own making.
      const made = await ada.authenticator.get({ challenge: 'A'.repeat(43) })
      await refused({ passkey: { challengeId: 'A'.repeat(43), response: made } })
      // Neither proof, or both: 400 on the field.
      const neither = await reauth(h, ada.accessToken, {})
      expect(neither.status).toBe(400)
      expect(((await neither.json()) as { errors: { path: string; code: string }[] }).errors).toEqual([
        expect.objectContaining({ path: 'password', code: 'required' }),
      ])
      const both = await reauth(h, ada.accessToken, { password: PASSWORD, passkey: await passkeyProof(h, ada.authenticator) })
      expect(both.status).toBe(400)
      expect(((await both.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['passkey'])
      const stale = await h.request('DELETE', `/auth/passkeys/${ada.passkey.id}`, { headers: ada.bearer })
      expect(stale.status).toBe(401)

      const proof = await passkeyProof(h, ada.authenticator)
      const ok = await reauth(h, ada.accessToken, { passkey: proof })
      expect(ok.status).toBe(200)
      expect(ok.headers.getSetCookie()).toEqual([])
      expect(await claims(ok)).toMatchObject({
        amr: ['hwk', 'user', 'mfa'],
        auth_time: Math.floor(h.clock.now().getTime() / 1000),
        sid: decodeJwt(ada.accessToken).sid,
      })
      // Single use.
      await refused({ passkey: proof })
      h.clock.advance(60_000)
      const present = await reauth(h, ada.accessToken, { passkey: await passkeyProof(h, ada.authenticator, { flags: FLAGS.UP }) })
      expect(present.status).toBe(200)
      expect((await claims(present)).amr).toEqual(['hwk'])
      // The session is fresh: the passkey can be removed (Ada still has her password).
      expect((await h.request('DELETE', `/auth/passkeys/${ada.passkey.id}`, { headers: ada.bearer })).status).toBe(204)
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'reauthentication.failed')).toHaveLength(6)
      expect(h.events.filter((e) => e.type === 'reauthenticated').map((e) => (e as { amr: string[] }).amr)).toEqual([
        ['hwk', 'user', 'mfa'],
        ['hwk'],
      ])
    },
  )

  run('a counter that goes back refuses the reauth (400) and emits passkey.counter_regressed', async () => {
    const h = setup()
    const ada = await withPasskey(h)
    expect((await reauth(h, ada.accessToken, { passkey: await passkeyProof(h, ada.authenticator, { counter: 7 }) })).status).toBe(
      200,
    )
    expect((await reauth(h, ada.accessToken, { passkey: await passkeyProof(h, ada.authenticator, { counter: 7 }) })).status).toBe(
      400,
    )
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'passkey.counter_regressed')).toMatchObject([
      { userId: ada.user.id, passkeyId: ada.passkey.id },
    ])
  })

  run(
    'reauth by passkey on a two-factor account: without user verification it needs a code (hwk,otp,mfa); with it, none',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      const factor = await turnOnTwoFactor(h, ada.bearer)
      const o = await loginOptions(h)
      const login = await signIn(h, o.challengeId, await ada.authenticator.get(o.options))
      expect(login.status).toBe(200)
      const token = ((await login.json()) as { accessToken: string }).accessToken
      h.clock.advance(600_000)
      const onlyPresent = () => passkeyProof(h, ada.authenticator, { flags: FLAGS.UP })
      const missing = await reauth(h, token, { passkey: await onlyPresent() })
      expect(missing.status).toBe(400)
      expect(((await missing.json()) as { errors: { path: string; code: string }[] }).errors).toEqual([
        expect.objectContaining({ path: 'code', code: 'code_required' }),
      ])
      expect((await reauth(h, token, { passkey: await onlyPresent(), code: '000000' })).status).toBe(400)
      const withCode = await reauth(h, token, { passkey: await onlyPresent(), code: factor.code() })
      expect(withCode.status).toBe(200)
      expect((await claims(withCode)).amr).toEqual(['hwk', 'otp', 'mfa'])
      const recovery = await reauth(h, token, { passkey: await onlyPresent(), code: factor.recoveryCodes[0] })
      expect(recovery.status).toBe(200)
      expect((await claims(recovery)).amr).toEqual(['hwk', 'otp', 'mfa'])
      // User verification proves two factors: no code.
      const verified = await reauth(h, token, { passkey: await passkeyProof(h, ada.authenticator) })
      expect(verified.status).toBe(200)
      expect((await claims(verified)).amr).toEqual(['hwk', 'user', 'mfa'])
    },
  )

  run('an account without a password re-authenticates with its passkey', async () => {
    const h = setup({ emailSignIn: { signUp: true } })
    const started = await h.request('POST', '/auth/email-sign-in', { json: { email: 'eve@example.com' } })
    expect(started.status).toBe(202)
    const { flow } = (await started.json()) as { flow: string }
    const mail = await h.mailOf('sign-in', 'eve@example.com')
    const signedIn = await h.request('POST', '/auth/email-sign-in/verify', { json: { flow, code: mail.code } })
    expect(signedIn.status).toBe(200)
    const { accessToken } = (await signedIn.json()) as { accessToken: string }
    const bearer = { Authorization: `Bearer ${accessToken}` }
    const authenticator = softAuthenticator({ origin: ORIGIN })
    const options = (await (
      await h.request('POST', '/auth/passkeys/register/options', { headers: bearer })
    ).json()) as CreationOptions
    const registered = await h.request('POST', '/auth/passkeys/register', {
      json: { response: await authenticator.create(options), emailCode: await h.emailCode('eve@example.com') },
      headers: bearer,
    })
    expect(registered.status).toBe(201)
    h.clock.advance(600_000)
    // No password to be right.
    expect((await reauth(h, accessToken, { password: PASSWORD })).status).toBe(400)
    const ok = await reauth(h, accessToken, { passkey: await passkeyProof(h, authenticator) })
    expect(ok.status).toBe(200)
    expect((await claims(ok)).amr).toEqual(['hwk', 'user', 'mfa'])
    // Fresh again: a second passkey can be added.
    expect((await h.request('POST', '/auth/passkeys/register/options', { headers: bearer })).status).toBe(200)
  })

  run(
    'after a second step the session names both: pwd, email or hwk first, then otp or hwk; after a passkey only a code answers',
    async () => {
      const h = setup()
      const ada = await withPasskey(h)
      const factor = await turnOnTwoFactor(h, ada.bearer)
      type Challenge = { challenge: string; methods: string[]; passkeyOptions?: RequestOptions }
      const challenged = async (res: Response) => {
        expect(res.status).toBe(202)
        return (await res.json()) as Challenge
      }
      const first = {
        pwd: async () => challenged(await h.login('ada@example.com', PASSWORD)),
        email: async () => {
          const start = await h.request('POST', '/auth/email-sign-in', { json: { email: 'ada@example.com' } })
          const { flow } = (await start.json()) as { flow: string }
          const { code } = await h.mailOf('sign-in', 'ada@example.com')
          return challenged(await h.request('POST', '/auth/email-sign-in/verify', { json: { flow, code } }))
        },
        hwk: async () => {
          const o = await loginOptions(h)
          return challenged(await signIn(h, o.challengeId, await ada.authenticator.get(o.options, { flags: FLAGS.UP })))
        },
      }
      const verify = (json: unknown) => h.request('POST', '/auth/two-factor/verify', { json })
      let recovery = 0
      const second = {
        otp: async (c: Challenge) => {
          h.clock.advance(30_000)
          return verify({ challenge: c.challenge, code: factor.code() })
        },
        recovery: (c: Challenge) => verify({ challenge: c.challenge, code: factor.recoveryCodes[recovery++] }),
        hwk: async (c: Challenge) =>
          verify({ challenge: c.challenge, passkey: await ada.authenticator.get(c.passkeyOptions as RequestOptions) }),
      }
      const cases = [
        ['pwd', 'otp', ['pwd', 'otp', 'mfa']],
        ['pwd', 'recovery', ['pwd', 'otp', 'mfa']],
        ['pwd', 'hwk', ['pwd', 'hwk', 'mfa']],
        ['email', 'otp', ['email', 'otp', 'mfa']],
        ['email', 'recovery', ['email', 'otp', 'mfa']],
        ['email', 'hwk', ['email', 'hwk', 'mfa']],
        ['hwk', 'otp', ['hwk', 'otp', 'mfa']],
        ['hwk', 'recovery', ['hwk', 'otp', 'mfa']],
      ] as const
      for (const [one, two, amr] of cases) {
        const c = await first[one]()
        expect(c.methods, one).toEqual(one === 'hwk' ? ['totp', 'recovery'] : ['totp', 'recovery', 'passkey'])
        const res = await second[two](c)
        expect(res.status, `${one} then ${two}`).toBe(200)
        expect(await amrOf(res), `${one} then ${two}`).toEqual(amr)
        const token = ((await res.json()) as { accessToken: string }).accessToken
        const fresh = await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${token}` } })
        expect(fresh.status).toBe(200)
      }
      // After a passkey that did not verify the user, the passkey again is the same factor twice:
      // no options are offered, and an assertion (even answering a password challenge's options) is a wrong answer.
      const afterPasskey = await first.hwk()
      expect(afterPasskey.passkeyOptions).toBeUndefined()
      const other = await first.pwd()
      const refused = await verify({
        challenge: afterPasskey.challenge,
        passkey: await ada.authenticator.get(other.passkeyOptions as RequestOptions),
      })
      expect(refused.status).toBe(401)
      expect(await json(refused)).toMatchObject({ type: 'urn:latchkey:problem:two-factor-failed' })
      // The challenge lives on (a wrong answer counts one of its five): a code finishes it.
      h.clock.advance(30_000)
      const done = await verify({ challenge: afterPasskey.challenge, code: factor.code() })
      expect(done.status).toBe(200)
      expect(await amrOf(done)).toEqual(['hwk', 'otp', 'mfa'])
    },
  )

  run('sign-in is limited per address: the 101st attempt in 15 minutes is 429', async () => {
    const h = setup()
    const o = await loginOptions(h, '198.51.100.9')
    const statuses: number[] = []
    for (let i = 0; i < 101; i++) statuses.push((await signIn(h, o.challengeId, { id: 'x' }, '198.51.100.9')).status)
    expect(statuses.slice(0, 100).every((s) => s === 400)).toBe(true)
    expect(statuses[100]).toBe(429)
  })
})

describe('passkeys option', () => {
  it('is checked at construction, naming the bad field', () => {
    const bad = (passkeys: unknown, name: string) =>
      expect(() => harness({ passkeys: passkeys as typeof PASSKEYS })).toThrow(
        new RegExp(`passkeys\\.${name.replace(/[[\]]/g, '\\$&')}`),
      )
    bad({ ...PASSKEYS, rpId: 'https://localhost' }, 'rpId')
    bad({ ...PASSKEYS, rpName: '' }, 'rpName')
    bad({ ...PASSKEYS, origins: [] }, 'origins')
    bad({ ...PASSKEYS, origins: ['http://localhost:3000/app'] }, 'origins[0]')
    bad({ ...PASSKEYS, origins: ['http://other.test'] }, 'origins[0]')
    bad({ rpId: 'example.com', rpName: 'x', origins: ['http://app.example.com'] }, 'origins[0]')
    expect(() => harness({ passkeys: { rpId: 'example.com', rpName: 'x', origins: ['https://app.example.com'] } })).not.toThrow()
  })

  it('without it, the passkey routes are not there', async () => {
    const h = harness()
    expect((await h.request('POST', '/auth/passkeys/login/options')).status).toBe(404)
  })
})
