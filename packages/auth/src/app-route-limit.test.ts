import { z } from '@hono/zod-openapi'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'
import { type OpenedStore, STORES } from '../test/stores.js'
import type { Store } from './store/types.js'

/**
 * An application's route with `limit` (docs/reference/limits.md#application-routes): counted
 * after the guard, with the numbers of the library's `ip` and `user` keys, answered and
 * documented as the `/auth` routes' limits are.
 */
const Note = z.object({ text: z.string().min(1) })
const body = { required: true, content: { 'application/json': { schema: Note } } }
const WINDOW = { windowSeconds: 900 }

const setup = (store?: Store) => {
  const h = harness({ ...(store ? { store } : {}), rateLimit: { ip: { max: 3, ...WINDOW }, user: { max: 2, ...WINDOW } } })
  // Through auth.route and through auth.openapi: the same builder.
  h.app.openapi(
    h.auth.route({
      method: 'post',
      path: '/notes',
      auth: true,
      limit: { name: 'notes-write', by: ['ip', 'user'] },
      request: { body },
      responses: { 201: { description: 'made' } },
    }),
    (c) => c.body(null, 201),
  )
  h.auth.openapi(
    h.app,
    {
      method: 'get',
      path: '/search',
      auth: true,
      limit: { name: 'search', by: ['ip'] },
      request: { query: z.object({ q: z.string().max(10).optional() }) },
      fastQuery: (url) => (url.endsWith('/search') ? {} : undefined),
      responses: { 204: { description: 'searched' } },
    },
    (c) => c.body(null, 204),
  )
  h.app.openapi(h.auth.route({ method: 'get', path: '/plain', auth: true, responses: { 204: { description: 'read' } } }), (c) =>
    c.body(null, 204),
  )
  const note = (headers: Record<string, string>, ip: string, text = 'a') =>
    h.request('POST', '/notes', { json: { text }, headers, ip })
  return { h, note }
}

describe.each(STORES)('an application route with a limit, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)(
    'answers 429 past the user’s limit, with the headers and problem document of the /auth routes, and emits rate_limited',
    async () => {
      const { h, note } = setup(opened.store)
      const ada = await h.signup()
      const bob = await h.signup('bob@example.com')
      // Each try from another address: only the user's count runs out.
      expect((await note(ada.bearer, '198.51.100.1')).status).toBe(201)
      expect((await note(ada.bearer, '198.51.100.2')).status).toBe(201)
      const limited = await note(ada.bearer, '198.51.100.3')
      expect(limited.status).toBe(429)
      expect(limited.headers.get('content-type')).toBe('application/problem+json')
      expect(limited.headers.get('retry-after')).toBe('900')
      expect(limited.headers.get('ratelimit-policy')).toBe('"notes-write-ip";q=3;w=900, "notes-write-user";q=2;w=900')
      expect(limited.headers.get('ratelimit')).toBe('"notes-write-user";r=0;t=900')
      expect(await limited.json()).toMatchObject({ status: 429, code: 'rate_limited', type: 'urn:latchkey:problem:rate-limited' })
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'rate_limited')).toEqual([
        expect.objectContaining({ type: 'rate_limited', endpoint: 'notes-write', userId: ada.user.id }),
      ])
      // Counted per user: another account is not refused; the window ends on time.
      expect((await note(bob.bearer, '198.51.100.3')).status).toBe(201)
      h.clock.advance(900_000)
      // The access token has expired by then too: a new one from a login.
      const { accessToken } = (await (await h.login()).json()) as { accessToken: string }
      expect((await note({ Authorization: `Bearer ${accessToken}` }, '198.51.100.4')).status).toBe(201)
    },
  )

  it.skipIf(skip !== null)(
    'counts per address when it says so: two users from one address share it, another address does not',
    async () => {
      const { h } = setup(opened.store)
      const ada = await h.signup()
      const bob = await h.signup('bob@example.com')
      const search = (headers: Record<string, string>, ip: string) => h.request('GET', '/search', { headers, ip })
      expect((await search(ada.bearer, '192.0.2.1')).status).toBe(204)
      expect((await search(bob.bearer, '192.0.2.1')).status).toBe(204)
      expect((await search(ada.bearer, '192.0.2.1')).status).toBe(204)
      const limited = await search(bob.bearer, '192.0.2.1')
      expect(limited.status).toBe(429)
      expect(limited.headers.get('ratelimit')).toBe('"search-ip";r=0;t=900')
      expect((await search(bob.bearer, '192.0.2.2')).status).toBe(204)
      // Its own counter: the library's limits and the other app route's are untouched.
      expect((await h.request('POST', '/notes', { json: { text: 'a' }, headers: bob.bearer, ip: '192.0.2.1' })).status).toBe(201)
      expect((await h.login('ada@example.com', 'wrong password here', '192.0.2.1')).status).toBe(401)
    },
  )

  it.skipIf(skip !== null)('never answers 429 before the 401 of a missing token, and a 401 counts nothing', async () => {
    const { h, note } = setup(opened.store)
    for (let i = 0; i < 5; i++) {
      expect((await h.request('POST', '/notes', { json: { text: 'a' }, ip: '192.0.2.7' })).status).toBe(401)
      expect((await h.request('GET', '/search?q=x', { ip: '192.0.2.7' })).status).toBe(401)
    }
    const ada = await h.signup()
    expect((await note(ada.bearer, '192.0.2.7')).status).toBe(201)
    expect((await h.request('GET', '/search', { headers: ada.bearer, ip: '192.0.2.7' })).status).toBe(204)
  })

  it.skipIf(skip !== null)(
    'counts before validation: a 400 counts, and past the limit a bad request is a 429, not a 400',
    async () => {
      const { h, note } = setup(opened.store)
      const ada = await h.signup()
      expect((await note(ada.bearer, '192.0.2.8', '')).status).toBe(400)
      expect((await note(ada.bearer, '192.0.2.8')).status).toBe(201)
      expect((await note(ada.bearer, '192.0.2.8', '')).status).toBe(429)
      const search = (query: string) => h.request('GET', `/search?${query}`, { headers: ada.bearer, ip: '192.0.2.9' })
      expect((await search('q=a&q=b')).status).toBe(400)
      expect((await search('q=x')).status).toBe(204)
      expect((await search('q=x')).status).toBe(204)
      expect((await search('q=a&q=b')).status).toBe(429)
    },
  )

  it.skipIf(skip !== null)('documents 429 with its headers on a limited operation, and not on one without a limit', () => {
    const { h } = setup(opened.store)
    const doc = h.app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })
    const responses = (path: string, method: 'get' | 'post') => doc.paths?.[path]?.[method]?.responses ?? {}
    expect(Object.keys(responses('/notes', 'post')).sort()).toEqual(['201', '401', '403', '413', '415', '429', '500'])
    expect(Object.keys(responses('/search', 'get')).sort()).toEqual(['204', '401', '429', '500'])
    expect(Object.keys(responses('/plain', 'get')).sort()).toEqual(['204', '401', '500'])
    const limited = responses('/notes', 'post')['429'] as { description: string; headers?: Record<string, unknown> }
    expect(Object.keys(limited.headers ?? {}).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After'])
    expect(limited.description).toBe('Too many requests from this client or this user')
  })
})

describe('an application limit is checked when the route is built', () => {
  const none = { 204: { description: 'none' } }
  it('refuses the name of an /auth route’s limit, naming it', () => {
    const h = harness()
    for (const name of ['login', 'change-password', 'refresh']) {
      expect(() => h.auth.route({ method: 'get', path: '/x', auth: true, limit: { name, by: ['ip'] }, responses: none })).toThrow(
        new TypeError(`limit.name: "${name}" is the limit of an /auth route; give the application's route a name of its own`),
      )
      expect(() =>
        h.auth.openapi(h.app, { method: 'get', path: '/y', auth: true, limit: { name, by: ['user'] }, responses: none }, (c) =>
          c.body(null, 204),
        ),
      ).toThrow(TypeError)
    }
  })

  it('refuses a name a key or a header field cannot carry, and no key or a key twice', () => {
    const h = harness()
    const route = (limit: { name: string; by: readonly ('ip' | 'user')[] }) => () =>
      h.auth.route({ method: 'get', path: '/x', auth: true, limit, responses: none })
    for (const name of ['', 'a:b', 'say "hi"', 'x'.repeat(65), '-lead'])
      expect(route({ name, by: ['ip'] }), name).toThrow(/^limit\.name: /)
    expect(route({ name: 'notes', by: [] })).toThrow(new TypeError('limit.by of "notes": list "ip", "user" or both, each once'))
    expect(route({ name: 'notes', by: ['ip', 'ip'] })).toThrow(TypeError)
    expect(route({ name: 'notes.read_v2', by: ['user', 'ip'] })).not.toThrow()
    // Two application routes may share a counter on purpose.
    expect(route({ name: 'notes.read_v2', by: ['user', 'ip'] })).not.toThrow()
  })
})
