/**
 * Promises of API keys (docs/guide/api-keys.md) that api-keys.test.ts leaves unproven, on both
 * stores: a key is refused with 403 `session_required` by every guarded `/auth` route the library
 * mounts (read from its OpenAPI document, with every feature on: passkeys, providers, operators)
 * but `GET /auth/me`, and nothing happens; an operator's key cannot act as an operator; disabling
 * the account kills its keys on the next request and enabling brings none back; a revocation is
 * the `api_key.revoked` event; a key never issued is refused like any other; `expiresInDays` is
 * honoured; the guard tells a session apart by its id.
 */
import { expect, it } from 'vitest'
import { harness } from '../../test/harness.js'
import { operators } from '../../test/operators.js'
import { onEveryStore } from '../../test/stores.js'
import { seededApiKey } from './key-format.js'

const SCOPES = { 'todos:read': 'Read your todos', 'todos:write': 'Change your todos' }
type Json = Record<string, unknown>
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

onEveryStore('API keys’ promises on $name', ({ opened, run }) => {
  const setup = () => {
    const h = operators({
      store: opened().store,
      apiKeys: { scopes: SCOPES },
      passkeys: { rpId: 'localhost', rpName: 'Latchkey test', origins: ['http://localhost:3000'] },
      providers: [{ id: 'corp', name: 'Corp', issuer: 'https://sso.corp.example', clientId: 'c', clientSecret: 's' }],
      rateLimit: { user: { max: 1000, windowSeconds: 900 } },
    })
    h.app.get('/todos', h.auth.guard(true, { scope: 'todos:read' }), (c) => c.json({ credential: c.get('credential') }))
    return h
  }
  type H = ReturnType<typeof setup>
  const newKey = async (h: H, token: string, json: Json = { name: 'CI', scopes: ['todos:read', 'todos:write'] }) => {
    const res = await h.request('POST', '/auth/api-keys', { headers: bearer(token), json })
    expect(res.status).toBe(201)
    return (await res.json()) as { id: string; key: string; expiresAt: string; createdAt: string }
  }
  /** An operator with a verified address (a key needs one). */
  const verifiedOperator = async (h: H) => {
    const op = await h.operator()
    await h.verifyEmail('op@example.com')
    return op
  }

  run('every guarded /auth route but GET /auth/me answers a key 403 session_required, and nothing happens', async () => {
    const h = setup()
    const op = await verifiedOperator(h)
    const ada = await h.signup('ada@example.com')
    const { key, id } = await newKey(h, op.accessToken)
    const doc = h.app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })
    // The guarded operations: those whose security names a bearer scheme (POST /auth/refresh names its cookie only).
    const bearers = Object.entries(doc.components?.securitySchemes ?? {})
      .filter(([, s]) => 'type' in s && s.type === 'http' && s.scheme === 'bearer')
      .map(([name]) => name)
    const guarded: [string, string][] = []
    for (const [path, item] of Object.entries(doc.paths ?? {}))
      for (const method of METHODS) {
        const op = (item as Record<string, { security?: Record<string, unknown>[] } | undefined>)[method]
        if (path.startsWith('/auth/') && op?.security?.some((req) => bearers.some((b) => b in req)))
          guarded.push([method.toUpperCase(), path])
      }
    // The document lists the routes of every feature that is on.
    const paths = guarded.map(([method, path]) => `${method} ${path}`)
    for (const expected of [
      'POST /auth/api-keys',
      'POST /auth/oauth/{provider}/link',
      'DELETE /auth/identities/{id}',
      'POST /auth/passkeys/register/options',
      'POST /auth/two-factor/setup',
      'GET /auth/admin/users',
      'POST /auth/admin/users/{id}/disable',
      'DELETE /auth/admin/users/{id}/two-factor',
    ])
      expect(paths).toContain(expected)
    const before = await opened().count('auth_sessions')
    for (const [method, path] of guarded) {
      const concrete = path
        .replace('{provider}', 'corp')
        .replace('/auth/admin/users/{id}', `/auth/admin/users/${ada.user.id}`)
        .replace('/auth/api-keys/{id}', `/auth/api-keys/${id}`)
        .replace('{id}', crypto.randomUUID())
      const json = method === 'GET' || method === 'DELETE' ? undefined : { reason: 'by key', name: 'x', scopes: ['todos:read'] }
      const res = await h.request(method, concrete, { headers: bearer(key), ...(json ? { json } : {}) })
      const body = (await res.json()) as Json
      if (`${method} ${path}` === 'GET /auth/me') expect(res.status).toBe(200)
      else expect([method, path, res.status, body.code]).toEqual([method, path, 403, 'session_required'])
    }
    // The operator's key did nothing to Ada, to itself, or to the sessions.
    const shown = (await (await h.call(op.bearer, 'GET', `/users/${ada.user.id}`)).json()) as Json
    expect(shown).toMatchObject({ disabledAt: null, emailVerified: false, sessions: 1 })
    expect(await opened().count('auth_api_keys')).toBe(1)
    expect(await opened().count('auth_sessions')).toBe(before)
    expect((await h.request('GET', '/todos', { headers: bearer(key) })).status).toBe(200)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type.startsWith('admin.'))).toEqual([])
  })

  run('disabling the account kills its keys on the next request; enabling brings none back', async () => {
    const h = setup()
    const op = await verifiedOperator(h)
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    const { key } = await newKey(h, ada.accessToken)
    expect((await h.request('GET', '/todos', { headers: bearer(key) })).status).toBe(200)
    await h.disable(op.bearer, ada.user.id)
    const refused = await h.request('GET', '/todos', { headers: bearer(key) })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
    expect((await h.request('GET', '/auth/me', { headers: bearer(key) })).status).toBe(401)
    expect((await h.call(op.bearer, 'POST', `/users/${ada.user.id}/enable`)).status).toBe(204)
    expect((await h.request('GET', '/todos', { headers: bearer(key) })).status).toBe(401)
    const login = (await (await h.login('ada@example.com')).json()) as { accessToken: string }
    expect(await (await h.request('GET', '/auth/api-keys', { headers: bearer(login.accessToken) })).json()).toEqual([])
  })

  run('a revocation is the api_key.revoked event; a key never issued gets the one 401 body', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    const { key, id } = await newKey(h, ada.accessToken)
    expect((await h.request('DELETE', `/auth/api-keys/${id}`, { headers: ada.bearer })).status).toBe(204)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'api_key.revoked')).toEqual([
      expect.objectContaining({ type: 'api_key.revoked', userId: ada.user.id, keyId: id }),
    ])
    const revoked = await h.request('GET', '/todos', { headers: bearer(key) })
    const never = await h.request('GET', '/todos', { headers: bearer(seededApiKey().key) })
    expect([revoked.status, never.status]).toEqual([401, 401])
    expect(await never.text()).toBe(await revoked.text())
    expect(never.headers.get('www-authenticate')).toBe(revoked.headers.get('www-authenticate'))
  })

  run('expiresInDays sets expiresAt; the guard tells a session by its id and amr', async () => {
    const h = setup()
    const ada = await h.signup('ada@example.com')
    await h.verifyEmail('ada@example.com')
    const made = await newKey(h, ada.accessToken, { name: 'month', scopes: ['todos:read'], expiresInDays: 30 })
    expect(new Date(made.expiresAt).getTime() - new Date(made.createdAt).getTime()).toBe(30 * 86_400_000)
    h.clock.advance(30 * 86_400_000 - 1000)
    expect((await h.request('GET', '/todos', { headers: bearer(made.key) })).status).toBe(200)
    h.clock.advance(1000)
    expect((await h.request('GET', '/todos', { headers: bearer(made.key) })).status).toBe(401)
    const login = await h.login('ada@example.com')
    const { accessToken } = (await login.json()) as { accessToken: string }
    const sessions = (await (await h.request('GET', '/auth/sessions', { headers: bearer(accessToken) })).json()) as Json[]
    const current = sessions.find((s) => s.current === true)
    const seen = (await (await h.request('GET', '/todos', { headers: bearer(accessToken) })).json()) as Json
    expect(seen.credential).toEqual({ kind: 'session', sessionId: current?.id, amr: ['pwd'] })
  })
})

it('a key is read from the Authorization header only, whatever the scheme’s case', async () => {
  const h = harness({ apiKeys: { scopes: SCOPES } })
  h.app.get('/todos', h.auth.guard(true, { scope: 'todos:read' }), (c) => c.json({}))
  const ada = await h.signup('ada@example.com')
  await h.verifyEmail('ada@example.com')
  const res = await h.request('POST', '/auth/api-keys', { headers: ada.bearer, json: { name: 'k', scopes: ['todos:read'] } })
  const { key } = (await res.json()) as { key: string }
  expect((await h.request('GET', '/todos', { headers: { Authorization: `bearer ${key}` } })).status).toBe(200)
  const elsewhere: Record<string, string>[] = [
    { Cookie: `token=${key}` },
    { Cookie: `refresh_token=${key}` },
    { 'X-Api-Key': key },
    { Authorization: `Basic ${btoa(`${key}:`)}` },
    { Authorization: key },
  ]
  for (const headers of elsewhere)
    expect((await h.request('GET', '/todos', { headers })).status, JSON.stringify(headers)).toBe(401)
  for (const query of [`access_token=${key}`, `api_key=${key}`, `key=${key}`])
    expect((await h.request('GET', `/todos?${query}`)).status, query).toBe(401)
})
