/**
 * The operators' routes over HTTP, on every store (docs/guide/operators.md): the policy and a
 * fresh session guard them, the search pages through accounts, and each action does what it says,
 * tells the user by mail and the audit log who did it, and never shows a secret.
 */
import { expect, it } from 'vitest'
import { PASSWORD } from '../../test/harness.js'
import { type Json, operators } from '../../test/operators.js'
import { onEveryStore } from '../../test/stores.js'

it('refuses at construction an operators’ policy that is not registered', () => {
  expect(() => operators({ admin: { policy: 'nobody' as never } })).toThrow(/admin\.policy/)
  expect(() => operators({ admin: { policy: 'admin', canActOnAdmins: 'yes' as never } })).toThrow(/admin\.canActOnAdmins/)
})

onEveryStore('the operators’ routes on $name', ({ opened, run }) => {
  const setup = (overrides: Parameters<typeof operators>[0] = {}) => operators({ store: opened().store, ...overrides })

  run('answers operators only: 401 without a token, 403 for a user who fails the policy', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    expect((await h.request('GET', '/auth/admin/users')).status).toBe(401)
    const refused = await h.call(ada.bearer, 'GET', '/users')
    expect(refused.status).toBe(403)
    expect(refused.headers.get('content-type')).toContain('application/problem+json')
    expect((await h.call(ada.bearer, 'POST', `/users/${ada.user.id}/enable`)).status).toBe(403)
    const op = await h.operator()
    expect((await h.call(op.bearer, 'GET', '/users')).status).toBe(200)
    // The role is read on every request: taking it away ends the power at once.
    await h.store.setRole('op@example.com', null)
    expect((await h.call(op.bearer, 'GET', '/users')).status).toBe(403)
  })

  run('searches by a prefix of the email or the name, newest first, a page at a time', async () => {
    const h = setup()
    const op = await h.operator()
    for (const [i, name] of ['Ada Lovelace', 'Grace Hopper', 'Adele', 'Alan Turing', 'ADA King'].entries()) {
      h.clock.advance(1000)
      await h.signup(`user${i}@example.com`, PASSWORD, name)
    }
    const page = async (query: string) => (await (await h.call(op.bearer, 'GET', `/users?${query}`)).json()) as Json
    const names = (body: Json) => (body.users as Json[]).map((u) => u.name)
    expect(names(await page('query=ada'))).toEqual(['ADA King', 'Ada Lovelace'])
    expect(names(await page('query=USER1'))).toEqual(['Grace Hopper'])
    const first = await page('limit=2')
    expect(names(first)).toEqual(['ADA King', 'Alan Turing'])
    const second = await page(`limit=2&cursor=${first.next}`)
    expect(names(second)).toEqual(['Adele', 'Grace Hopper'])
    const third = await page(`limit=2&cursor=${second.next}`)
    expect(names(third)).toEqual(['Ada Lovelace', 'Operator'])
    expect(third.next).toBeNull()
    const everyone = await page('')
    expect(everyone.users).toHaveLength(6)
    expect(everyone.next).toBeNull()
  })

  run('shows an account’s facts and counts, never a hash, secret or token', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    await h.login('ada@example.com')
    const res = await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(Object.keys(body).sort()).toEqual(
      [
        'createdAt',
        'disabledAt',
        'email',
        'emailVerified',
        'id',
        'identities',
        'lastSignInAt',
        'name',
        'passkeys',
        'sessions',
        'twoFactor',
      ].sort(),
    )
    expect(body).toMatchObject({ id: ada.user.id, email: 'ada@example.com', sessions: 2, passkeys: 0, twoFactor: false })
    expect(body).toMatchObject({ disabledAt: null, emailVerified: false, identities: [] })
    expect(body.lastSignInAt).toBe(h.clock.now().toISOString())
    expect(JSON.stringify(body)).not.toMatch(/fast|hash|token/i)
    expect((await h.call(op.bearer, 'GET', '/users/no-such-user')).status).toBe(404)

    // Identities at providers: each provider once, sorted, in the account and in the search.
    for (const [provider, issuer] of [
      ['google', 'https://accounts.google.com'],
      ['github', 'https://github.com'],
      ['google', 'https://accounts.google.com/other'],
    ] as const) {
      const linked = await h.store.linkIdentity({
        id: crypto.randomUUID(),
        userId: ada.user.id,
        provider,
        issuer,
        subject: crypto.randomUUID(),
        email: null,
        sealedTokens: null,
        createdAt: h.clock.now(),
      })
      expect(linked).toBe('linked')
    }
    const after = (await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json
    expect(after.identities).toEqual(['github', 'google'])
    const found = (await (await h.call(op.bearer, 'GET', '/users?query=ada')).json()) as Json
    expect((found.users as Json[]).map((u) => u.identities)).toEqual([['github', 'google']])
  })

  run('needs a fresh session for every write, not for reads', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    h.clock.advance(301_000)
    expect((await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).status).toBe(200)
    for (const [method, path, json] of [
      ['POST', '/disable', { reason: 'x' }],
      ['POST', '/enable', undefined],
      ['DELETE', '/sessions', undefined],
      ['DELETE', '/two-factor', undefined],
      ['POST', '/send-password-reset', undefined],
      ['POST', '/verify-email', undefined],
    ] as const) {
      const res = await h.call(op.bearer, method, `/users/${ada.user.id}${path}`, json)
      expect(res.status, path).toBe(401)
      expect(((await res.json()) as Json).code).toBe('reauthentication_required')
    }
    const reauth = await h.request('POST', '/auth/reauth', { json: { password: PASSWORD }, headers: op.bearer })
    expect(reauth.status).toBe(200)
    const fresh = { Authorization: `Bearer ${((await reauth.json()) as Json).accessToken}` }
    expect((await h.call(fresh, 'POST', `/users/${ada.user.id}/verify-email`)).status).toBe(204)
  })

  run('disables: sessions die on the next request, the user is mailed, the log names the operator and the reason', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    await h.disable(op.bearer, ada.user.id, 'chargeback fraud')
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    const refresh = await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${ada.refresh}` } })
    expect(refresh.status).toBe(401)
    expect(await h.mailOf('account-disabled', 'ada@example.com')).toMatchObject({ byOperator: true })
    expect(h.events.find((e) => e.type === 'admin.user_disabled')).toMatchObject({
      actorId: op.user.id,
      userId: ada.user.id,
      reason: 'chargeback fraud',
    })
    const shown = (await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json
    expect(shown).toMatchObject({ disabledAt: h.clock.now().toISOString(), sessions: 0 })
    // Enabling lets the owner sign in again; nothing that was revoked comes back.
    expect((await h.call(op.bearer, 'POST', `/users/${ada.user.id}/enable`)).status).toBe(204)
    expect(await h.mailOf('account-enabled', 'ada@example.com')).toMatchObject({ byOperator: true })
    expect(h.events.find((e) => e.type === 'admin.user_enabled')).toMatchObject({ actorId: op.user.id })
    expect((await h.login('ada@example.com')).status).toBe(200)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
  })

  run('refuses an operator’s own account (409) and, without the option, another operator (403 protected_user)', async () => {
    const h = setup()
    const op = await h.operator()
    const other = await h.operator('second@example.com')
    const self = await h.call(op.bearer, 'POST', `/users/${op.user.id}/disable`, { reason: 'oops' })
    expect(self.status).toBe(409)
    for (const [method, path, json] of [
      ['POST', '/disable', { reason: 'x' }],
      ['DELETE', '/sessions', undefined],
      ['POST', '/send-password-reset', undefined],
    ] as const) {
      const res = await h.call(op.bearer, method, `/users/${other.user.id}${path}`, json)
      expect(res.status, path).toBe(403)
      expect(((await res.json()) as Json).code).toBe('protected_user')
    }
    expect((await h.request('GET', '/auth/me', { headers: other.bearer })).status).toBe(200)
    const allowed = setup({ admin: { policy: 'admin', canActOnAdmins: true } })
    const a = await allowed.operator('a@example.com')
    const b = await allowed.operator('b@example.com')
    await allowed.disable(a.bearer, b.user.id)
    expect((await allowed.call(a.bearer, 'POST', `/users/${a.user.id}/disable`, { reason: 'x' })).status).toBe(409)
  })

  run('signs out everywhere, mails the reset link, marks verified: each mailed and logged', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    expect((await h.call(op.bearer, 'DELETE', `/users/${ada.user.id}/sessions`)).status).toBe(204)
    expect((await h.request('GET', '/auth/me', { headers: ada.bearer })).status).toBe(401)
    expect(await h.mailOf('signed-out-everywhere', 'ada@example.com')).toMatchObject({ byOperator: true })

    expect((await h.call(op.bearer, 'POST', `/users/${ada.user.id}/verify-email`)).status).toBe(204)
    expect(await h.mailOf('email-marked-verified', 'ada@example.com')).toMatchObject({ byOperator: true })
    const shown = (await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json
    expect(shown.emailVerified).toBe(true)

    const reset = await h.call(op.bearer, 'POST', `/users/${ada.user.id}/send-password-reset`)
    expect(reset.status).toBe(202)
    const mail = await h.mailOf('reset-password', 'ada@example.com')
    expect(mail).toMatchObject({ byOperator: true })
    expect(await reset.text()).not.toContain(mail.token)
    const used = await h.request('POST', '/auth/reset-password', {
      json: { token: mail.token, newPassword: 'a whole new passphrase' },
    })
    expect(used.status).toBe(204)
    const types = h.events.filter((e) => e.type.startsWith('admin.')).map((e) => [e.type, 'actorId' in e ? e.actorId : null])
    expect(types).toEqual([
      ['admin.sessions_revoked', op.user.id],
      ['admin.email_verified', op.user.id],
      ['admin.password_reset_sent', op.user.id],
    ])
  })
})
