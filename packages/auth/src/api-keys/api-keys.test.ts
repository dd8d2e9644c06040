/**
 * API keys over the routes, on both stores (docs/guide/api-keys.md): created from a fresh session
 * of a verified account and shown once, kept as a SHA-256 only, scoped, expiring, revoked on the
 * very next request; never a session (the auth routes and `fresh` routes refuse them); the acting
 * user always the key's owner. The clock is frozen.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { sha256Hex } from '../web.js'

const SCOPES = { 'todos:read': 'Read your todos', 'todos:write': 'Change your todos' }
type Json = Record<string, unknown>
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })
const INVALID = 'Bearer error="invalid_token"'

const setup = (store: OpenedStore['store']) => {
  // Many keys per test: the per-account limit of creations is not under test here.
  const h = harness({ store, apiKeys: { scopes: SCOPES }, rateLimit: { user: { max: 1000, windowSeconds: 900 } } })
  h.app.get('/todos', h.auth.guard(true, { scope: 'todos:read' }), (c) =>
    c.json({ userId: c.get('user').id, credential: c.get('credential') }),
  )
  h.app.post('/todos', h.auth.guard(true, { scope: 'todos:write' }), (c) => c.json({ userId: c.get('user').id }, 201))
  h.app.get('/fresh', h.auth.guard(true, { fresh: 300 }), (c) => c.json({}))
  return h
}
type H = ReturnType<typeof setup>

/** A verified account with a fresh session. */
const owner = async (h: H, email = 'ada@example.com') => {
  const user = await h.signup(email)
  await h.verifyEmail(email)
  return user
}

const createKey = async (h: H, token: string, json: Json = { name: 'CI', scopes: ['todos:read'] }) =>
  h.request('POST', '/auth/api-keys', { headers: bearer(token), json })

const newKey = async (h: H, token: string, json?: Json) => {
  const res = await createKey(h, token, json)
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; key: string; prefix: string; scopes: string[]; expiresAt: string }
}

describe.each(STORES)('API keys on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)

  run('is made by a fresh session of a verified account, shown once, stored as its SHA-256 only', async () => {
    const h = setup(opened.store)
    const ada = await h.signup()
    const unverified = await createKey(h, ada.accessToken)
    expect(unverified.status).toBe(403)
    expect(await unverified.json()).toMatchObject({ code: 'email_unverified' })
    await h.verifyEmail()

    const created = await createKey(h, ada.accessToken, { name: 'CI', scopes: ['todos:read', 'todos:read', 'todos:write'] })
    expect(created.status).toBe(201)
    expect(created.headers.get('cache-control')).toBe('no-store')
    const body = (await created.json()) as Json & { key: string }
    expect(body.key).toMatch(/^lk_[0-9A-Za-z]{46}$/)
    expect(body).toMatchObject({
      name: 'CI',
      scopes: ['todos:read', 'todos:write'],
      prefix: body.key.slice(0, 12),
      createdAt: h.clock.now().toISOString(),
      expiresAt: new Date(h.clock.now().getTime() + 90 * 86_400_000).toISOString(),
      lastUsedAt: null,
    })

    const list = await h.request('GET', '/auth/api-keys', { headers: ada.bearer })
    const keys = (await list.json()) as Json[]
    expect(keys).toEqual([{ ...body, key: undefined }].map(({ key: _, ...rest }) => rest))
    const rows = await opened.rows('auth_api_keys')
    expect(rows).toHaveLength(1)
    expect(rows[0]?.hash).toBe(sha256Hex(body.key))
    expect(JSON.stringify(rows)).not.toContain(body.key.slice(12))
    await h.auth.settled()
    expect(h.allMails.at(-1)).toMatchObject({ kind: 'api-key-created', to: 'ada@example.com', name: 'CI' })
    expect(h.events.at(-1)).toMatchObject({ type: 'api_key.created', keyId: body.id })
    expect(JSON.stringify([h.logs, h.events, h.allMails])).not.toContain(body.key.slice(12))

    h.clock.advance(301_000)
    const stale = await createKey(h, ada.accessToken)
    expect(stale.status).toBe(401)
    expect(await stale.json()).toMatchObject({ code: 'reauthentication_required' })
  })

  run(
    'calls a route of its scope as its owner; a missing scope is 403 with RFC 6750’s challenge; a session has every scope',
    async () => {
      const h = setup(opened.store)
      const ada = await owner(h)
      const { key, id } = await newKey(h, ada.accessToken)
      const read = await h.request('GET', '/todos?userId=someone-else', { headers: { ...bearer(key), 'X-User-Id': 'x' } })
      expect(read.status).toBe(200)
      expect(await read.json()).toEqual({
        userId: ada.user.id,
        credential: { kind: 'api-key', keyId: id, scopes: ['todos:read'] },
      })

      const write = await h.request('POST', '/todos', { headers: bearer(key), json: { userId: 'someone-else' } })
      expect(write.status).toBe(403)
      expect(write.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="todos:write"')
      expect(await write.json()).toMatchObject({ code: 'insufficient_scope', status: 403 })

      const scopeless = await h.request('GET', '/private', { headers: bearer(key) })
      expect(scopeless.status).toBe(403)
      expect(scopeless.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"')

      const bySession = await h.request('POST', '/todos', { headers: ada.bearer, json: {} })
      expect(bySession.status).toBe(201)
      const sessionRead = await h.request('GET', '/todos', { headers: ada.bearer })
      expect(((await sessionRead.json()) as { credential: Json }).credential).toMatchObject({ kind: 'session', amr: ['pwd'] })
    },
  )

  run('is never a session: the auth routes but GET /me, and fresh routes, answer 403 session_required', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    const { key, id } = await newKey(h, ada.accessToken)
    const me = await h.request('GET', '/auth/me', { headers: bearer(key) })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ id: ada.user.id })
    const refused: [string, string, Json?][] = [
      ['POST', '/auth/api-keys', { name: 'more', scopes: ['todos:read'] }],
      ['GET', '/auth/api-keys'],
      ['DELETE', `/auth/api-keys/${id}`],
      ['GET', '/auth/sessions'],
      ['POST', '/auth/change-password', { currentPassword: PASSWORD, newPassword: 'another long passphrase 42' }],
      ['POST', '/auth/delete-account', { currentPassword: PASSWORD }],
      ['POST', '/auth/logout'],
      ['GET', '/fresh'],
    ]
    for (const [method, path, json] of refused) {
      const res = await h.request(method, path, { headers: bearer(key), ...(json ? { json } : {}) })
      expect([path, res.status, ((await res.json()) as Json).code]).toEqual([path, 403, 'session_required'])
    }
    expect(await opened.count('auth_api_keys')).toBe(1)
    expect(await opened.count('auth_users')).toBe(1)
  })

  run(
    'unknown, mistyped, expired, revoked, oversized, or sent as a cookie or in the query: 401 invalid_token, one body',
    async () => {
      const h = setup(opened.store)
      const ada = await owner(h)
      const { key, id } = await newKey(h, ada.accessToken, { name: 'short', scopes: ['todos:read'], expiresInDays: 1 })
      const other = await newKey(h, ada.accessToken)
      const lookups: string[] = []
      const find = opened.store.findApiKey
      opened.store.findApiKey = (hash) => {
        lookups.push(hash)
        return find.call(opened.store, hash)
      }
      const typo = `${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`
      const bodies = new Set<string>()
      const expectRefused = async (headers: Record<string, string>, path = '/todos') => {
        const res = await h.request('GET', path, { headers })
        expect(res.status).toBe(401)
        bodies.add(await res.text())
        return res
      }
      expect((await expectRefused(bearer(typo))).headers.get('www-authenticate')).toBe(INVALID)
      await expectRefused(bearer(`lk_${'A'.repeat(10_000)}`))
      await expectRefused(bearer('x'.repeat(10_000)))
      await expectRefused({ Cookie: `token=${key}` })
      await expectRefused({}, `/todos?access_token=${key}`)
      expect(lookups).toEqual([])

      expect((await h.request('DELETE', `/auth/api-keys/${other.id}`, { headers: ada.bearer })).status).toBe(204)
      await expectRefused(bearer(other.key))
      const list = (await (await h.request('GET', '/auth/api-keys', { headers: ada.bearer })).json()) as Json[]
      expect(list.map((k) => k.id)).toEqual([id])
      const gone = await h.request('DELETE', `/auth/api-keys/${other.id}`, { headers: ada.bearer })
      expect(gone.status).toBe(404)
      expect(await gone.json()).toMatchObject({ detail: `No API key with id ${other.id}` })
      h.clock.advance(86_400_000)
      await expectRefused(bearer(key))
      expect(bodies.size).toBe(1)
      expect(JSON.stringify(h.logs)).not.toContain(key.slice(12))
    },
  )

  run('the sweep: a revoked key leaves no row; an expired one stays listed 30 days past its expiry, then goes', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    const short = await newKey(h, ada.accessToken, { name: 'short', scopes: ['todos:read'], expiresInDays: 1 })
    const long = await newKey(h, ada.accessToken, { name: 'long', scopes: ['todos:read'], expiresInDays: 365 })
    const revoked = await newKey(h, ada.accessToken)
    expect((await h.request('DELETE', `/auth/api-keys/${revoked.id}`, { headers: ada.bearer })).status).toBe(204)
    const kept = async () => (await opened.rows('auth_api_keys')).map((row) => String(row.id)).sort()
    expect(await kept()).toEqual([short.id, long.id].sort())
    const userId = String((await opened.rows('auth_api_keys'))[0]?.user_id)

    // A millisecond short of 30 days after it expired: refused, still listed (its `expiresAt` says why).
    h.clock.advance(31 * 86_400_000 - 1)
    expect((await h.request('GET', '/todos', { headers: bearer(short.key) })).status).toBe(401)
    expect((await h.auth.prune()).apiKeys).toBe(0)
    const listed = await opened.store.listApiKeys(userId)
    expect(new Map(listed.map((k) => [k.id, k.expiresAt.toISOString()]))).toEqual(
      new Map([
        [long.id, long.expiresAt],
        [short.id, short.expiresAt],
      ]),
    )
    h.clock.advance(1)
    expect((await h.auth.prune()).apiKeys).toBe(1)
    expect(await kept()).toEqual([long.id])
    expect((await h.request('GET', '/todos', { headers: bearer(long.key) })).status).toBe(200)
  })

  run('refuses bad input with a 4xx problem: names, scopes, expiry, ids; the 51st live key is 409', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    const bob = await owner(h, 'bob@example.com')
    const bad: Json[] = [
      { name: 'x', scopes: 'todos:read' },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['todos:admin'] },
      { name: 'x', scopes: ['todos:read\u0000'] },
      { name: 'x\u0000', scopes: ['todos:read'] },
      { name: 'x'.repeat(10_000), scopes: ['todos:read'] },
      { name: 'x', scopes: ['todos:read'], expiresInDays: 0 },
      { name: 'x', scopes: ['todos:read'], expiresInDays: 366 },
      { name: 'x', scopes: ['todos:read'], expiresInDays: '30' },
      { scopes: ['todos:read'] },
    ]
    for (const json of bad) {
      const res = await createKey(h, ada.accessToken, json)
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
    }
    const { id } = await newKey(h, bob.accessToken)
    for (const path of [`/auth/api-keys/${id}`, '/auth/api-keys/%00', `/auth/api-keys/${'z'.repeat(5000)}`]) {
      expect((await h.request('DELETE', path, { headers: ada.bearer })).status).toBe(404)
    }
    for (let i = 0; i < 50; i++) await newKey(h, ada.accessToken, { name: `k${i}`, scopes: ['todos:read'], expiresInDays: 1 })
    const over = await createKey(h, ada.accessToken)
    expect(over.status).toBe(409)
    expect(await over.json()).toMatchObject({ code: 'too_many_keys' })
    h.clock.advance(86_400_000)
    // Expired keys stay listed and count no more; a new sign-in may make one again.
    const login = (await (await h.login()).json()) as { accessToken: string }
    const again = await createKey(h, login.accessToken)
    expect(again.status).toBe(201)
    const list = await h.request('GET', '/auth/api-keys', { headers: bearer(login.accessToken) })
    expect(((await list.json()) as Json[]).length).toBe(51)
  })

  run('writes lastUsedAt at most once a minute per key', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    const { key } = await newKey(h, ada.accessToken)
    const lastUsed = async () =>
      ((await (await h.request('GET', '/auth/api-keys', { headers: ada.bearer })).json()) as Json[])[0]?.lastUsedAt
    const t1 = h.clock.now().toISOString()
    await h.request('GET', '/todos', { headers: bearer(key) })
    expect(await lastUsed()).toBe(t1)
    h.clock.advance(59_000)
    await Promise.all([1, 2, 3].map(() => h.request('GET', '/todos', { headers: bearer(key) })))
    expect(await lastUsed()).toBe(t1)
    h.clock.advance(1000)
    const t2 = h.clock.now().toISOString()
    await Promise.all([1, 2, 3].map(() => h.request('GET', '/todos', { headers: bearer(key) })))
    expect(await lastUsed()).toBe(t2)
  })

  run('a reset, an email change and the deletion revoke every key; a password change keeps them', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    const works = async (key: string) => (await h.request('GET', '/todos', { headers: bearer(key) })).status
    const kept = (await newKey(h, ada.accessToken)).key
    const change = await h.request('POST', '/auth/change-password', {
      headers: ada.bearer,
      json: { currentPassword: PASSWORD, newPassword: 'another long passphrase 42' },
    })
    expect(change.status).toBe(204)
    expect(await works(kept)).toBe(200)

    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    const { token } = await h.mailOf('reset-password', 'ada@example.com')
    const reset = await h.request('POST', '/auth/reset-password', { json: { token, newPassword: 'a third long passphrase 7' } })
    expect(reset.status).toBe(204)
    expect(await works(kept)).toBe(401)

    const login = (await (await h.login('ada@example.com', 'a third long passphrase 7')).json()) as { accessToken: string }
    const second = (await newKey(h, login.accessToken)).key
    const changeEmail = await h.request('POST', '/auth/change-email', {
      headers: bearer(login.accessToken),
      json: { newEmail: 'ada2@example.com' },
    })
    expect(changeEmail.status).toBe(202)
    const confirm = await h.mailOf('change-email', 'ada2@example.com')
    expect((await h.request('POST', '/auth/confirm-email', { json: { token: confirm.token } })).status).toBe(204)
    expect(await works(second)).toBe(401)

    const relogin = (await (await h.login('ada2@example.com', 'a third long passphrase 7')).json()) as { accessToken: string }
    const third = (await newKey(h, relogin.accessToken)).key
    const del = await h.request('POST', '/auth/delete-account', { headers: bearer(relogin.accessToken), json: {} })
    expect(del.status).toBe(204)
    expect(await works(third)).toBe(401)
    expect(await opened.count('auth_api_keys')).toBe(0)
  })

  run('revoked while in use: requests in flight finish as they may, the first one after the revocation is refused', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    const { key, id } = await newKey(h, ada.accessToken)
    const inFlight = Array.from({ length: 20 }, () => h.request('GET', '/todos', { headers: bearer(key) }))
    const revoked = h.request('DELETE', `/auth/api-keys/${id}`, { headers: ada.bearer })
    const statuses = await Promise.all(inFlight.map(async (r) => (await r).status))
    expect((await revoked).status).toBe(204)
    expect(statuses.every((s) => s === 200 || s === 401)).toBe(true)
    expect((await h.request('GET', '/todos', { headers: bearer(key) })).status).toBe(401)
  })

  run('two creations at the 50-key limit: one is stored, the other is 409', async () => {
    const h = setup(opened.store)
    const ada = await owner(h)
    for (let i = 0; i < 49; i++) await newKey(h, ada.accessToken)
    const [a, b] = await Promise.all([createKey(h, ada.accessToken), createKey(h, ada.accessToken)])
    expect([a.status, b.status].sort()).toEqual([201, 409])
    expect(await opened.count('auth_api_keys')).toBe(50)
  })

  run('a policy sees the credential', async () => {
    const h = harness({
      store: opened.store,
      apiKeys: { scopes: SCOPES },
      policies: { admin: (_, c) => c.get('credential').kind === 'session', owner: () => true, broken: () => true },
    })
    h.app.get('/humans', h.auth.guard('admin', { scope: 'todos:read' }), (c) => c.json({}))
    const ada = await owner(h as unknown as H)
    const { key } = await newKey(h as unknown as H, ada.accessToken)
    expect((await h.request('GET', '/humans', { headers: ada.bearer })).status).toBe(200)
    const byKey = await h.request('GET', '/humans', { headers: bearer(key) })
    expect(byKey.status).toBe(403)
    expect(await byKey.json()).toMatchObject({ code: 'forbidden' })
  })
})

describe('API keys off, and the options', () => {
  it('refuses every lk_ value with 401 and mounts no key routes', async () => {
    const h = harness()
    const ada = await h.signup()
    expect((await h.request('GET', '/auth/api-keys', { headers: ada.bearer })).status).toBe(404)
    const res = await h.request('GET', '/private', { headers: bearer(`lk_${'a'.repeat(46)}`) })
    expect(res.status).toBe(401)
  })

  it('names a bad option or an undeclared scope when the app is wired', () => {
    expect(() => harness({ apiKeys: { scopes: {} } })).toThrow(/apiKeys\.scopes/)
    expect(() => harness({ apiKeys: { scopes: { 'a b': 'spaces' } } })).toThrow(/apiKeys\.scopes\.a b/)
    const h = harness({ apiKeys: { scopes: { read: 'Read' } } })
    expect(() => h.auth.guard(true, { scope: 'write' as 'read' })).toThrow(/scope `write`/)
  })
})
