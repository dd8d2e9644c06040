/**
 * Apps extend the user (docs/reference/endpoints.md#signup): the extra signup fields an application declares are
 * validated with the rest of the body, stored with the user, typed and seen on `raw` by policies
 * and handlers (with defaults for accounts made before a field existed), and documented.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi'
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { PASSWORD, SECRET, T0 } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { createAuth } from '../create-auth.js'
import { problemErrorHandler } from '../errors.js'
import { fastHasher } from '../testing/index.js'

const fields = z.object({
  plan: z.enum(['free', 'pro']).default('free'),
  locale: z.string().max(10).optional(),
})

const app = (opened: OpenedStore) => {
  const auth = createAuth({
    secret: SECRET,
    store: opened.store,
    sendMail: () => {},
    hasher: fastHasher(),
    now: () => T0,
    signupFields: fields,
    policies: { pro: (user) => user.raw.plan === 'pro' },
  })
  const hono = new OpenAPIHono()
  hono.onError(problemErrorHandler())
  hono.route('/auth', auth.routes)
  hono.get('/me/plan', auth.guard(true), (c) => {
    const { plan, locale } = c.get('user').raw
    expectTypeOf(plan).toEqualTypeOf<'free' | 'pro'>()
    expectTypeOf(locale).toEqualTypeOf<string | undefined>()
    return c.json({ plan, locale: locale ?? null })
  })
  hono.get('/pro', auth.guard('pro'), (c) => c.json({ ok: true }))
  const post = (path: string, json: unknown) =>
    hono.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(json) })
  const get = (path: string, token: string) => hono.request(path, { headers: { Authorization: `Bearer ${token}` } })
  return { auth, hono, post, get }
}

describe.each(STORES)('signup fields on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
    await new Promise((resolve) => setTimeout(resolve, 0))
  })

  it.skipIf(skip !== null)('stores the declared fields, ignores unknown ones, and hands them to policies as raw', async () => {
    const { auth, post, get } = app(opened)
    const res = await post('/auth/signup', {
      name: 'Ada',
      email: 'ada@example.com',
      password: PASSWORD,
      plan: 'pro',
      locale: 'en-GB',
      role: 'admin',
      isAdmin: true,
    })
    expect(res.status).toBe(201)
    const { accessToken, user } = (await res.json()) as { accessToken: string; user: Record<string, unknown> }
    expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'id', 'name'])
    expect(await (await get('/me/plan', accessToken)).json()).toEqual({ plan: 'pro', locale: 'en-GB' })
    expect((await get('/pro', accessToken)).status).toBe(200)
    const stored = await opened.store.findUserByEmail('ada@example.com')
    expect(stored?.user).toMatchObject({ plan: 'pro', locale: 'en-GB', role: null })
    expect(stored?.user).not.toHaveProperty('isAdmin')
    await auth.close()
  })

  it.skipIf(skip !== null)('applies defaults, and gives them to accounts made before the field existed', async () => {
    const { auth, post, get } = app(opened)
    const res = await post('/auth/signup', { name: 'Bob', email: 'bob@example.com', password: PASSWORD })
    const { accessToken } = (await res.json()) as { accessToken: string }
    expect(await (await get('/me/plan', accessToken)).json()).toEqual({ plan: 'free', locale: null })
    expect((await get('/pro', accessToken)).status).toBe(403)

    // An account stored without any profile (before `signupFields` was set).
    const bare = createAuth({ secret: SECRET, store: opened.store, sendMail: () => {}, hasher: fastHasher(), now: () => T0 })
    const hono = new OpenAPIHono()
    hono.route('/auth', bare.routes)
    const old = await hono.request('/auth/signup', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Old', email: 'old@example.com', password: PASSWORD }),
    })
    const oldToken = ((await old.json()) as { accessToken: string }).accessToken
    expect(await (await get('/me/plan', oldToken)).json()).toEqual({ plan: 'free', locale: null })
    await bare.close()
    await auth.close()
  })

  it.skipIf(skip !== null)(
    'refuses a bad field beside the other errors, and text no store can hold, creating nothing',
    async () => {
      const { auth, post } = app(opened)
      const bad = await post('/auth/signup', { name: '', email: 'x@example.com', password: PASSWORD, plan: 'gold' })
      expect(bad.status).toBe(400)
      const body = (await bad.json()) as { errors: { path: string; code: string }[] }
      expect(body.errors.map((e) => [e.path, e.code])).toEqual([
        ['name', 'too_short'],
        ['plan', 'invalid_value'],
      ])
      const nul = await post('/auth/signup', { name: 'N', email: 'n@example.com', password: PASSWORD, locale: 'en\u0000' })
      expect(nul.status).toBe(400)
      expect(((await nul.json()) as { errors: { path: string; code: string }[] }).errors).toEqual([
        expect.objectContaining({ path: 'locale', code: 'unsupported_text' }),
      ])
      expect(await opened.count('auth_users')).toBe(0)
      await auth.close()
    },
  )
})

describe('signup fields', () => {
  it('are documented in the OpenAPI description of signup', () => {
    const auth = createAuth({
      secret: SECRET,
      store: {} as never,
      sendMail: () => {},
      hasher: fastHasher(),
      signupFields: fields,
    })
    const hono = new OpenAPIHono()
    hono.route('/auth', auth.routes)
    const doc = hono.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })
    const request = doc.components?.schemas?.SignupRequest as { properties: Record<string, unknown>; required: string[] }
    expect(Object.keys(request.properties).sort()).toEqual(['email', 'locale', 'name', 'password', 'plan'])
    expect(request.properties.plan).toMatchObject({ enum: ['free', 'pro'], default: 'free' })
    expect(request.required.sort()).toEqual(['email', 'name', 'password'])
    void auth.close()
  })

  it("may not reuse a name of the record's own fields", () => {
    expect(() =>
      createAuth({ secret: SECRET, store: {} as never, sendMail: () => {}, signupFields: z.object({ role: z.string() }) }),
    ).toThrow(/signupFields\.role/)
  })
})
