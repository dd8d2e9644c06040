/**
 * A disabled account on every store (docs/guide/operators.md#disable): every sign-in method answers
 * 403 `account_disabled` only once its credential is proven (a wrong one is the method's ordinary
 * refusal), before any second step; and disabling that races a login or a refresh leaves no
 * session behind.
 */
import { expect } from 'vitest'
import { type CreationOptions, softAuthenticator } from '../../test/authenticator.js'
import { cookieHeader, PASSWORD, refreshCookie } from '../../test/harness.js'
import { type Json, operators } from '../../test/operators.js'
import { onEveryStore } from '../../test/stores.js'
import { withTwoFactor } from '../../test/two-factor.js'
import type { PasswordHasher } from '../password.js'
import { fastHasher } from '../testing/index.js'

const ORIGIN = 'http://localhost:3000'
const PASSKEYS = { rpId: 'localhost', rpName: 'Latchkey test', origins: [ORIGIN] }

/** A hasher whose verifications wait at a gate the test opens: a login held between its check and its session. */
const gatedHasher = () => {
  const inner = fastHasher()
  let open: () => void = () => {}
  let gate: Promise<void> | null = null
  const hasher: PasswordHasher = {
    ...inner,
    async verify(hash, password) {
      const ok = await inner.verify(hash, password)
      if (gate) await gate
      return ok
    },
  }
  return {
    hasher,
    hold() {
      gate = new Promise((resolve) => {
        open = resolve
      })
    },
    release() {
      gate = null
      open()
    },
  }
}

onEveryStore('a disabled account on $name', ({ opened, run }) => {
  const setup = (overrides: Parameters<typeof operators>[0] = {}) =>
    operators({ store: opened().store, passkeys: PASSKEYS, ...overrides })
  const code = async (res: Response) => ((await res.json()) as Json).code

  run('password: the right one gets 403 account_disabled, a wrong one the ordinary 401', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    await h.disable(op.bearer, ada.user.id)
    const right = await h.login('ada@example.com', PASSWORD)
    expect(right.status).toBe(403)
    expect(await code(right)).toBe('account_disabled')
    expect(refreshCookie(right)).toBeUndefined()
    const wrong = await h.login('ada@example.com', 'not the password at all')
    const unknown = await h.login('nobody@example.com', 'not the password at all')
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).toBe(await unknown.text())
  })

  run('a second factor is never asked of a disabled account; a challenge from before is dead', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await withTwoFactor(h)
    const challenged = await h.login('ada@example.com')
    expect(challenged.status).toBe(202)
    const { challenge } = (await challenged.json()) as { challenge: string }
    await h.disable(op.bearer, ada.user.id)
    const verify = await h.request('POST', '/auth/two-factor/verify', { json: { challenge, code: ada.code() } })
    expect(verify.status).toBe(401)
    const again = await h.login('ada@example.com')
    expect(again.status).toBe(403)
    expect(await code(again)).toBe('account_disabled')
  })

  run('sign-in by email: the right link gets 403, a wrong one the ordinary 401', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    await h.disable(op.bearer, ada.user.id)
    expect((await h.request('POST', '/auth/email-sign-in', { json: { email: 'ada@example.com' } })).status).toBe(202)
    const mail = await h.mailOf('sign-in', 'ada@example.com')
    const wrong = await h.request('POST', '/auth/email-sign-in/verify', { json: { token: `${mail.token}x` } })
    expect(wrong.status).toBe(401)
    const right = await h.request('POST', '/auth/email-sign-in/verify', { json: { token: mail.token } })
    expect(right.status).toBe(403)
    expect(await code(right)).toBe('account_disabled')
  })

  run('passkey: the right assertion gets 403, before any session', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    const authenticator = softAuthenticator({ algorithm: 'ES256', origin: ORIGIN })
    const options = await h.request('POST', '/auth/passkeys/register/options', { headers: ada.bearer })
    const registered = await h.request('POST', '/auth/passkeys/register', {
      json: {
        response: await authenticator.create((await options.json()) as CreationOptions),
        emailCode: await h.emailCode('ada@example.com'),
      },
      headers: ada.bearer,
    })
    expect(registered.status).toBe(201)
    await h.disable(op.bearer, ada.user.id)
    const login = (await (await h.request('POST', '/auth/passkeys/login/options')).json()) as Json
    const res = await h.request('POST', '/auth/passkeys/login', {
      json: { challengeId: login.challengeId, response: await authenticator.get(login.options as never) },
    })
    expect(res.status).toBe(403)
    expect(await code(res)).toBe('account_disabled')
    expect(await opened().count('auth_sessions')).toBe(1)
  })

  run('disabling while a login is between its password check and its session leaves no session', async () => {
    const gated = gatedHasher()
    const h = setup({ hasher: gated.hasher })
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    gated.hold()
    const login = h.login('ada@example.com')
    await new Promise((resolve) => setTimeout(resolve, 50))
    await h.disable(op.bearer, ada.user.id)
    gated.release()
    const res = await login
    // The login verified a password the disabling outdated: the ordinary refusal or the disabled one, never a session.
    expect([401, 403]).toContain(res.status)
    expect(refreshCookie(res)).toBeUndefined()
    const shown = (await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json
    expect(shown.sessions).toBe(0)
    expect((await h.login('ada@example.com')).status).toBe(403)
  })

  run('disabling while a refresh is between its read and its swap: neither value nor any token works after', async () => {
    const base = opened().store
    let hold: Promise<void> | null = null
    let release: () => void = () => {}
    const store = {
      ...base,
      async swapRefresh(input: Parameters<typeof base.swapRefresh>[0]) {
        if (hold) await hold
        return base.swapRefresh(input)
      },
    }
    const h = setup({ store })
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    hold = new Promise((resolve) => {
      release = resolve
    })
    const refreshing = h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })
    await new Promise((resolve) => setTimeout(resolve, 50))
    await h.disable(op.bearer, ada.user.id)
    hold = null
    release()
    const res = await refreshing
    expect(res.status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })).status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
  })

  run('a refresh that wins the race hands out a token that dies with the disabling', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    const [refreshed] = await Promise.all([
      h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) }),
      h.disable(op.bearer, ada.user.id),
    ])
    if (refreshed.status === 200) {
      const token = ((await refreshed.json()) as Json).accessToken
      expect((await h.request('GET', '/auth/me', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401)
      expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(refreshCookie(refreshed) ?? '') })).status).toBe(
        401,
      )
    } else expect(refreshed.status).toBe(401)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
  })
})
