/**
 * What the ceremony refuses beyond the library's checks, and what a refusal spends
 * (docs/reference/passkeys.md#what-is-refused), over HTTP on both stores with the software
 * authenticator: a ceremony run in a frame of another site (`crossOrigin: true`) is refused by
 * registration (400), sign-in (401), the second step (401) and re-authentication (400); a wrong
 * mailed code leaves the registration challenge usable.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CreationOptions, type RequestOptions, softAuthenticator } from '../../test/authenticator.js'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { withTwoFactor } from '../../test/two-factor.js'

type H = ReturnType<typeof harness>
const ORIGIN = 'http://localhost:3000'
const PASSKEYS = { rpId: 'localhost', rpName: 'Latchkey test', origins: [ORIGIN] }
/** A frame of another site, with and without the top origin (Safari names none). */
const FRAMED = [{ crossOrigin: { topOrigin: 'https://evil.test' } }, { crossOrigin: {} }]

describe.each(STORES)('passkey ceremonies on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)
  const setup = () => harness({ store: opened.store, passkeys: PASSKEYS })

  const creationOptions = async (h: H, bearer: Record<string, string>) => {
    const res = await h.request('POST', '/auth/passkeys/register/options', { headers: bearer })
    expect(res.status).toBe(200)
    return (await res.json()) as CreationOptions
  }
  const register = (h: H, bearer: Record<string, string>, response: unknown, emailCode: string) =>
    h.request('POST', '/auth/passkeys/register', { json: { response, emailCode }, headers: bearer })
  const loginOptions = async (h: H) =>
    (await (await h.request('POST', '/auth/passkeys/login/options')).json()) as { challengeId: string; options: RequestOptions }
  /** Ada, two-factor on, with a passkey. */
  const ada = async (h: H) => {
    const user = await withTwoFactor(h)
    const authenticator = softAuthenticator({ origin: ORIGIN })
    const options = await creationOptions(h, user.bearer)
    const res = await register(h, user.bearer, await authenticator.create(options), await h.emailCode())
    expect(res.status).toBe(201)
    return { ...user, authenticator }
  }

  run('registration refuses a cross-origin ceremony (400) and keeps the mailed code; the same code then works', async () => {
    const h = setup()
    const user = await h.signup('ada@example.com')
    await h.verifyEmail()
    const authenticator = softAuthenticator({ origin: ORIGIN })
    const options = await creationOptions(h, user.bearer)
    const code = await h.emailCode()
    for (const framed of FRAMED) {
      const res = await register(h, user.bearer, await authenticator.create(options, framed), code)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:invalid-passkey' })
    }
    // The refusals spent the challenge, not the code.
    expect((await register(h, user.bearer, await authenticator.create(options), code)).status).toBe(400)
    const again = await creationOptions(h, user.bearer)
    expect((await register(h, user.bearer, await authenticator.create(again), await h.emailCode())).status).toBe(201)
  })

  /** A registration response of Ada's, the code mailed for it, and a wrong one. */
  const pending = async (h: H) => {
    const user = await h.signup('ada@example.com')
    await h.verifyEmail()
    const authenticator = softAuthenticator({ origin: ORIGIN })
    const response = await authenticator.create(await creationOptions(h, user.bearer))
    const code = await h.emailCode()
    return { user, response, code, wrong: code === '000000' ? '111111' : '000000' }
  }

  run('a wrong emailCode (400) leaves the challenge usable: the same response with the right code → 201', async () => {
    const h = setup()
    const { user, response, code, wrong } = await pending(h)
    for (let i = 0; i < 4; i++) {
      const refused = await register(h, user.bearer, response, wrong)
      expect(refused.status).toBe(400)
      expect(await refused.json()).toMatchObject({ type: 'urn:latchkey:problem:invalid-email-code' })
    }
    const added = await register(h, user.bearer, response, code)
    expect(added.status).toBe(201)
    // Single use still: the challenge and the code are both spent now.
    expect((await register(h, user.bearer, response, code)).status).toBe(400)
    expect(await (await h.request('GET', '/auth/passkeys', { headers: user.bearer })).json()).toHaveLength(1)
  })

  run('the fifth wrong emailCode kills the code: the challenge alone adds nothing', async () => {
    const h = setup()
    const { user, response, code, wrong } = await pending(h)
    for (let i = 0; i < 5; i++) expect((await register(h, user.bearer, response, wrong)).status).toBe(400)
    expect((await register(h, user.bearer, response, code)).status).toBe(400)
    expect(await (await h.request('GET', '/auth/passkeys', { headers: user.bearer })).json()).toEqual([])
  })

  run('sign-in refuses a cross-origin assertion with its one 401; the same passkey signs in from the site', async () => {
    const h = setup()
    const { authenticator } = await ada(h)
    const bodies = new Set<string>()
    for (const framed of FRAMED) {
      const o = await loginOptions(h)
      const res = await h.request('POST', '/auth/passkeys/login', {
        json: { challengeId: o.challengeId, response: await authenticator.get(o.options, framed) },
      })
      expect(res.status).toBe(401)
      expect(res.headers.getSetCookie()).toEqual([])
      bodies.add(await res.text())
    }
    expect(bodies.size).toBe(1)
    const o = await loginOptions(h)
    const res = await h.request('POST', '/auth/passkeys/login', {
      json: { challengeId: o.challengeId, response: await authenticator.get(o.options) },
    })
    expect(res.status).toBe(200)
  })

  run(
    'the second step refuses a cross-origin assertion (401, a wrong answer); the challenge then takes a right one',
    async () => {
      const h = setup()
      const { authenticator } = await ada(h)
      const challenged = async () =>
        (await (await h.login('ada@example.com', PASSWORD)).json()) as { challenge: string; passkeyOptions: RequestOptions }
      for (const framed of FRAMED) {
        const first = await challenged()
        const res = await h.request('POST', '/auth/two-factor/verify', {
          json: { challenge: first.challenge, passkey: await authenticator.get(first.passkeyOptions, framed) },
        })
        expect(res.status).toBe(401)
        expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:two-factor-failed' })
      }
      const second = await challenged()
      const done = await h.request('POST', '/auth/two-factor/verify', {
        json: { challenge: second.challenge, passkey: await authenticator.get(second.passkeyOptions) },
      })
      expect(done.status).toBe(200)
    },
  )

  run('re-authentication refuses a cross-origin assertion (400 invalid-passkey); from the site it freshens', async () => {
    const h = setup()
    const { authenticator, bearer } = await ada(h)
    const proof = async (ceremony = {}) => {
      const o = await loginOptions(h)
      return { challengeId: o.challengeId, response: await authenticator.get(o.options, ceremony) }
    }
    for (const framed of FRAMED) {
      const res = await h.request('POST', '/auth/reauth', { json: { passkey: await proof(framed) }, headers: bearer })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ type: 'urn:latchkey:problem:invalid-passkey' })
    }
    expect((await h.request('POST', '/auth/reauth', { json: { passkey: await proof() }, headers: bearer })).status).toBe(200)
  })
})
