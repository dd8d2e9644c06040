/**
 * Promises of the operators' API (docs/guide/operators.md) that the other tests of this folder
 * leave unproven, on every store: removing a second factor; every action an `admin.*` event
 * naming the operator and the user (one that changes nothing too), and every change a mail saying
 * an operator did it; `protected_user` on every action against another operator (and on the
 * operator's own account, where disabling is the 409); 404 on every action for an unknown id; the
 * list's entries the same `AdminUser` as the account's page; the default page of 20 and a prefix
 * search; and a disabled account's right email code answered 403 `account_disabled`, a wrong one
 * the ordinary 401.
 */
import { expect } from 'vitest'
import { PASSWORD } from '../../test/harness.js'
import { type Json, operators } from '../../test/operators.js'
import { onEveryStore } from '../../test/stores.js'
import { withTwoFactor } from '../../test/two-factor.js'

const ACTIONS = [
  ['POST', '/disable', { reason: 'abuse report #7' }],
  ['POST', '/enable', undefined],
  ['DELETE', '/sessions', undefined],
  ['DELETE', '/two-factor', undefined],
  ['POST', '/send-password-reset', undefined],
  ['POST', '/verify-email', undefined],
] as const

onEveryStore('the operators’ promises on $name', ({ opened, run }) => {
  const setup = (overrides: Parameters<typeof operators>[0] = {}) => operators({ store: opened().store, ...overrides })

  run('removes a lost second factor: the next sign-in asks no code; the user is told an operator did it', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await withTwoFactor(h as never)
    expect((await h.login('ada@example.com')).status).toBe(202)
    const shown = async () => ((await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json).twoFactor
    expect(await shown()).toBe(true)
    expect((await h.call(op.bearer, 'DELETE', `/users/${ada.user.id}/two-factor`)).status).toBe(204)
    expect(await shown()).toBe(false)
    const login = await h.login('ada@example.com')
    expect(login.status).toBe(200)
    const token = ((await login.json()) as { accessToken: string }).accessToken
    const status = await h.request('GET', '/auth/two-factor', { headers: { Authorization: `Bearer ${token}` } })
    expect(await status.json()).toMatchObject({ enabled: false })
    await h.auth.settled()
    expect(await h.mailOf('two-factor-disabled', 'ada@example.com')).toMatchObject({ byOperator: true })
    expect(h.events.filter((e) => e.type.startsWith('admin.'))).toEqual([
      expect.objectContaining({ actorId: op.user.id, userId: ada.user.id }),
    ])
    const mails = JSON.stringify(h.allMails.filter((m) => m.to === 'op@example.com'))
    for (const code of ada.recoveryCodes) expect(mails).not.toContain(code)
  })

  run(
    'every action is an admin.* event naming the operator and the user; every change a mail saying an operator did it',
    async () => {
      const h = setup()
      const op = await h.operator()
      const ada = await withTwoFactor(h as never)
      await h.auth.settled()
      const mailsBefore = h.allMails.length
      for (const [method, path, json] of ACTIONS) {
        const res = await h.call(op.bearer, method, `/users/${ada.user.id}${path}`, json)
        expect(res.status, path).toBeLessThan(300)
      }
      // An action that changes nothing (the account is enabled already) is in the audit log too, and mails nobody.
      expect((await h.call(op.bearer, 'POST', `/users/${ada.user.id}/enable`)).status).toBe(204)
      await h.auth.settled()
      const admin = h.events.filter((e) => e.type.startsWith('admin.'))
      expect(admin.map((e) => e.type)).toEqual([
        'admin.user_disabled',
        'admin.user_enabled',
        'admin.sessions_revoked',
        'admin.two_factor_cleared',
        'admin.password_reset_sent',
        'admin.email_verified',
        'admin.user_enabled',
      ])
      for (const event of admin) expect(event, event.type).toMatchObject({ actorId: op.user.id, userId: ada.user.id })
      expect(admin[0]).toMatchObject({ reason: 'abuse report #7' })
      const mailed = h.allMails.slice(mailsBefore)
      expect(mailed.map((m) => [m.kind, m.to, 'byOperator' in m ? m.byOperator : undefined])).toEqual([
        ['account-disabled', 'ada@example.com', true],
        ['account-enabled', 'ada@example.com', true],
        ['signed-out-everywhere', 'ada@example.com', true],
        ['two-factor-disabled', 'ada@example.com', true],
        ['reset-password', 'ada@example.com', true],
      ])
    },
  )

  run('no action on another operator, nor on one’s own account, without the option; reads are allowed', async () => {
    const h = setup()
    const op = await h.operator()
    await h.verifyEmail('op@example.com')
    const other = await withTwoFactor(h as never, 'second@example.com')
    expect(await h.store.setRole('second@example.com', 'admin')).toBe(true)
    for (const [method, path, json] of ACTIONS) {
      const res = await h.call(op.bearer, method, `/users/${other.user.id}${path}`, json)
      expect([path, res.status, ((await res.json()) as Json).code]).toEqual([path, 403, 'protected_user'])
    }
    for (const [method, path, json] of ACTIONS) {
      const res = await h.call(op.bearer, method, `/users/${op.user.id}${path}`, json)
      const expected = path === '/disable' ? [409, 'own_account'] : [403, 'protected_user']
      expect([path, res.status, ((await res.json()) as Json).code]).toEqual([path, ...expected])
    }
    expect((await h.call(op.bearer, 'GET', `/users/${other.user.id}`)).status).toBe(200)
    // Nothing happened to either.
    expect((await h.request('GET', '/auth/me', { headers: other.bearer })).status).toBe(200)
    expect((await h.request('GET', '/auth/me', { headers: op.bearer })).status).toBe(200)
    expect((await h.login('second@example.com')).status).toBe(202)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type.startsWith('admin.'))).toEqual([])
    expect(h.allMails.filter((m) => 'byOperator' in m)).toEqual([])
  })

  run('signing out everywhere ends the refresh cookies and a second step not answered yet, keeps API keys', async () => {
    const h = setup({ apiKeys: { scopes: { 'todos:read': 'Read' } } })
    h.app.get('/todos', h.auth.guard(true, { scope: 'todos:read' }), (c) => c.json({}))
    const op = await h.operator()
    const ada = await withTwoFactor(h as never)
    const made = await h.request('POST', '/auth/api-keys', { headers: ada.bearer, json: { name: 'CI', scopes: ['todos:read'] } })
    expect(made.status).toBe(201)
    const { key } = (await made.json()) as { key: string }
    const pending = await h.login('ada@example.com')
    expect(pending.status).toBe(202)
    const { challenge } = (await pending.json()) as { challenge: string }
    expect((await h.call(op.bearer, 'DELETE', `/users/${ada.user.id}/sessions`)).status).toBe(204)
    expect((await h.request('POST', '/auth/refresh', { headers: { Cookie: `refresh_token=${ada.refresh}` } })).status).toBe(401)
    expect((await h.request('POST', '/auth/two-factor/verify', { json: { challenge, code: ada.code() } })).status).toBe(401)
    expect(((await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json).sessions).toBe(0)
    // A key is not a session (the account-event table keeps keys on a sign-out).
    expect((await h.request('GET', '/todos', { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200)
  })

  run('every action on an id no account has is 404', async () => {
    const h = setup()
    const op = await h.operator()
    for (const [method, path, json] of ACTIONS) {
      const res = await h.call(op.bearer, method, `/users/${crypto.randomUUID()}${path}`, json)
      expect([path, res.status]).toEqual([path, 404])
      expect(res.headers.get('content-type')).toContain('application/problem+json')
    }
  })

  run('the list shows each account as the account’s page does; 20 a page by default; the query is a prefix', async () => {
    const h = setup()
    const op = await h.operator()
    for (let i = 0; i < 21; i++) {
      h.clock.advance(1000)
      await h.signup(`user${String(i).padStart(2, '0')}@example.com`, PASSWORD, i === 0 ? 'Ada Lovelace' : `User ${i}`)
    }
    const page = (await (await h.call(op.bearer, 'GET', '/users')).json()) as { users: Json[]; next: string | null }
    expect(page.users).toHaveLength(20)
    expect(typeof page.next).toBe('string')
    const [first] = page.users
    const single = (await (await h.call(op.bearer, 'GET', `/users/${first?.id}`)).json()) as Json
    expect(first).toEqual(single)
    const rest = (await (await h.call(op.bearer, 'GET', `/users?cursor=${page.next}`)).json()) as { users: Json[]; next: null }
    expect(rest.users.map((u) => u.email)).toEqual(['user00@example.com', 'op@example.com'])
    expect(rest.next).toBeNull()
    const search = async (query: string) =>
      (
        (await (await h.call(op.bearer, 'GET', `/users?query=${encodeURIComponent(query)}`)).json()) as { users: Json[] }
      ).users.map((u) => u.name)
    expect(await search('ada')).toEqual(['Ada Lovelace'])
    expect(await search('lovelace')).toEqual([])
    expect(await search('example.com')).toEqual([])
    expect(await search('USER00@')).toEqual(['Ada Lovelace'])
  })

  run('accounts made in the same millisecond page without a repeat or a gap', async () => {
    const h = setup()
    const op = await h.operator()
    h.clock.advance(1000)
    for (let i = 0; i < 7; i++) await h.signup(`same${i}@example.com`, PASSWORD, `Same ${i}`)
    const seen: string[] = []
    let cursor: string | null = ''
    while (cursor !== null) {
      const res = await h.call(op.bearer, 'GET', `/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      const body = (await res.json()) as { users: Json[]; next: string | null }
      seen.push(...body.users.map((u) => u.email as string))
      cursor = body.next
    }
    expect(seen).toHaveLength(8)
    expect(new Set(seen).size).toBe(8)
    expect(seen.at(-1)).toBe('op@example.com')
  })

  run('a disabled account: the right email code gets 403 account_disabled, a wrong one the ordinary 401', async () => {
    const h = setup()
    const op = await h.operator()
    const ada = await h.signup('ada@example.com')
    await h.disable(op.bearer, ada.user.id)
    const started = await h.request('POST', '/auth/email-sign-in', { json: { email: 'ada@example.com' } })
    expect(started.status).toBe(202)
    const { flow } = (await started.json()) as { flow: string }
    const { code } = await h.mailOf('sign-in', 'ada@example.com')
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
    const wrong = await h.request('POST', '/auth/email-sign-in/verify', { json: { flow, code: wrongCode } })
    expect(wrong.status).toBe(401)
    const right = await h.request('POST', '/auth/email-sign-in/verify', { json: { flow, code } })
    expect(right.status).toBe(403)
    expect(await right.json()).toMatchObject({ code: 'account_disabled' })
  })
})
