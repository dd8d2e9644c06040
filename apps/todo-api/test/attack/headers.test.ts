/**
 * Header hygiene on the real server: `X-Content-Type-Options: nosniff` on every response (every
 * route, every error, including requests the HTTP adapter refuses before the app sees them);
 * `Cache-Control: no-store` on every response that carries a token or sets a cookie, and with
 * `Referrer-Policy: no-referrer` on responses to `?access_token=` requests and on the reset page;
 * the refresh cookie's exact attributes in development and in production (`__Secure-` prefix and
 * `Secure`), and the cookie name each mode accepts.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Reply, type RunningServer, request, startServer, startServerWithMail, type startSmtp } from '../support.js'
import { ATTACK_STORES, type AttackStore } from './db-view.js'
import { expectProblem, freshIp, newMember, rawRequest, refreshValueOf, strongPassword } from './helpers.js'

/** The attributes of the one Set-Cookie line for `name`, lower-cased, with its value. */
const setCookie = (reply: Reply, name: string) => {
  const lines = reply.headers.getSetCookie().filter((l) => l.startsWith(`${name}=`))
  expect(lines, `one Set-Cookie for ${name}`).toHaveLength(1)
  const [pair = '', ...attributes] = (lines[0] ?? '').split(';').map((p) => p.trim())
  return {
    value: pair.slice(name.length + 1),
    attributes: Object.fromEntries(
      attributes.map((a) => {
        const [k = '', v = ''] = a.split('=')
        return [k.toLowerCase(), v]
      }),
    ),
  }
}

const noStore = (reply: Reply, what: string) => expect(reply.headers.get('cache-control'), what).toBe('no-store')

describe.each(ATTACK_STORES)('nosniff and no-store on $name', (store) => {
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let target: Awaited<ReturnType<AttackStore['prepare']>> | undefined
  beforeAll(async () => {
    if (store.skip) return
    target = await store.prepare()
    ;({ server, smtp } = await startServerWithMail({ env: { ...target.env, NODE_ENV: 'production', TRUST_PROXY: 'true' } }))
  })
  afterAll(async () => {
    await server?.stop()
    await smtp?.close()
    await target?.drop()
  })

  it.skipIf(store.skip !== null)(
    'sends nosniff on every response: pages, documents, successes and every kind of error',
    async () => {
      const ada = await newMember(server.base, 'Ada')
      const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
        request(server.base, method, path, { ...options, headers: { 'x-forwarded-for': freshIp(), ...options.headers } })
      const todo = await call('POST', '/todos', { token: ada.token, body: { title: 'sniff' } })
      const id = (todo.body as { id: string }).id
      const limitedEmail = `limited-${randomUUID()}@example.com`
      for (let i = 0; i < 10; i++)
        await call('POST', '/auth/login', { body: { email: limitedEmail, password: 'whatever it is' } })

      const replies: [string, Reply][] = [
        [
          'signup 201',
          await call('POST', '/auth/signup', {
            body: { name: 'B', email: `b-${randomUUID()}@example.com`, password: strongPassword() },
          }),
        ],
        ['todo 201', todo],
        ['todos 200', await call('GET', '/todos', { token: ada.token })],
        ['todo 200', await call('PATCH', `/todos/${id}`, { token: ada.token, body: { done: true } })],
        ['todo 204', await call('DELETE', `/todos/${id}`, { token: ada.token })],
        ['me 200', await call('GET', '/auth/me', { token: ada.token })],
        ['forgot 202', await call('POST', '/auth/forgot-password', { body: { email: ada.email } })],
        ['health 200', await call('GET', '/health')],
        ['openapi 200', await call('GET', '/openapi.json')],
        ['docs 200', await call('GET', '/docs')],
        ['docs asset 200', await call('GET', '/docs/swagger-ui.css')],
        ['reset page 200', await call('GET', '/reset-password?token=abc')],
        ['favicon 204', await call('GET', '/favicon.ico')],
        ['HEAD 200', await call('HEAD', '/health')],
        ['400', await call('POST', '/todos', { token: ada.token, body: { title: '' } })],
        ['400 malformed', await call('POST', '/auth/login', { body: '{', headers: { 'content-type': 'application/json' } })],
        ['401', await call('GET', '/todos')],
        ['401 login', await call('POST', '/auth/login', { body: { email: ada.email, password: 'not the password' } })],
        ['403', await call('GET', '/admin/stats', { token: ada.token })],
        ['404', await call('GET', '/nowhere')],
        ['404 todo', await call('DELETE', `/todos/${randomUUID()}`, { token: ada.token })],
        ['404/405 method', await call('PUT', '/todos', { token: ada.token })],
        ['409', await call('POST', '/auth/signup', { body: { name: 'A', email: ada.email, password: strongPassword() } })],
        ['413', await call('POST', '/todos', { token: ada.token, body: { title: 'x'.repeat(70_000) } })],
        ['415', await call('POST', '/todos', { token: ada.token, body: 'title=x', headers: { 'content-type': 'text/plain' } })],
        ['429', await call('POST', '/auth/login', { body: { email: limitedEmail, password: 'whatever it is' } })],
        ['logout 204', await call('POST', '/auth/logout', { token: ada.token })],
      ]
      for (const [what, reply] of replies) {
        expect(reply.headers.get('x-content-type-options'), what).toBe('nosniff')
        if (reply.status >= 400 && what !== 'HEAD 200') expectProblem(reply, what)
      }
      expect(replies.find(([w]) => w === '429')?.[1].status).toBe(429)
    },
  )

  it("sends the app-wide security headers on successes and errors, and a route's own Cache-Control wins", async () => {
    const ada = await newMember(server.base, 'Ada')
    const wide = {
      'x-frame-options': 'SAMEORIGIN',
      'strict-transport-security': 'max-age=15552000; includeSubDomains',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    }
    const replies: [string, Reply, string | null][] = [
      ['todos 200', await request(server.base, 'GET', '/todos', { token: ada.token }), 'no-store'],
      ['todos 401', await request(server.base, 'GET', '/todos'), 'no-store'],
      ['todo 404', await request(server.base, 'DELETE', `/todos/${randomUUID()}`, { token: ada.token }), 'no-store'],
      ['404', await request(server.base, 'GET', '/nowhere'), null],
      ['docs css', await request(server.base, 'GET', '/docs/swagger-ui.css'), 'public, max-age=86400'],
      ['docs js', await request(server.base, 'GET', '/docs/swagger-ui-bundle.js'), 'public, max-age=86400'],
    ]
    for (const [what, reply, cacheControl] of replies) {
      for (const [name, value] of Object.entries(wide)) expect(reply.headers.get(name), `${what}: ${name}`).toBe(value)
      if (cacheControl) expect(reply.headers.get('cache-control'), what).toBe(cacheControl)
    }
    expect(replies.find(([w]) => w === 'docs css')?.[1].headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(replies.find(([w]) => w === 'docs js')?.[1].headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  })

  it.skipIf(store.skip !== null)(
    'answers requests the HTTP adapter cannot turn into a URL with a problem document and nosniff too',
    async () => {
      const heads = [
        'GET /health HTTP/1.0\r\n\r\n', // HTTP/1.0 needs no Host header
        `GET /health HTTP/1.1\r\nHost: evil example\r\nConnection: close\r\n\r\n`,
        `GET /\\evil HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        `GET http://[bad/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ]
      for (const head of heads) {
        const reply = await rawRequest(server.port, head)
        const what = JSON.stringify(head)
        expect(reply.status, what).toBe(400)
        expect(reply.headers.get('x-content-type-options'), what).toBe('nosniff')
        expectProblem(reply, what)
      }
    },
  )

  it.skipIf(store.skip !== null)(
    "answers requests Node's HTTP parser refuses, and a read declaring a body over 64 KiB, as problem documents",
    async () => {
      const cases: [string, number][] = [
        // Over Node's 16 KiB of request line and headers: a long path, a long header.
        [`GET /todos/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 431],
        [`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(17_000)}\r\nConnection: close\r\n\r\n`, 431],
        ['POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\nConnection: close\r\n\r\n', 400],
        ['NOT-HTTP\r\n\r\n', 400],
        // A read takes no body, but one declared over the limit is refused before anything else (413 before 401).
        ['GET /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 70000\r\nConnection: close\r\n\r\n', 413],
        // On a public read too, which no route builder guards.
        ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 70000\r\nConnection: close\r\n\r\n', 413],
      ]
      for (const [head, status] of cases) {
        const reply = await rawRequest(server.port, head)
        const what = head.slice(0, 40)
        expect(reply.status, what).toBe(status)
        expect(reply.headers.get('x-content-type-options'), what).toBe('nosniff')
        expectProblem(reply, what)
      }
      // The server still answers afterwards.
      expect((await request(server.base, 'GET', '/health')).status).toBe(200)
    },
  )

  it.skipIf(store.skip !== null)(
    'sends Cache-Control: no-store on every response that carries a token or sets a cookie',
    async () => {
      const email = `c-${randomUUID()}@example.com`
      const password = strongPassword()
      const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
        request(server.base, method, path, { ...options, headers: { 'x-forwarded-for': freshIp(), ...options.headers } })
      const signup = await call('POST', '/auth/signup', { body: { name: 'C', email, password } })
      noStore(signup, 'signup')
      const login = await call('POST', '/auth/login', { body: { email, password } })
      noStore(login, 'login')
      const cookie = `__Secure-refresh_token=${refreshValueOf(login)}`
      const refreshed = await call('POST', '/auth/refresh', { cookie })
      expect(refreshed.status).toBe(200)
      noStore(refreshed, 'refresh')
      noStore(await call('POST', '/auth/refresh', { cookie }), 'refused refresh (clears nothing, still no-store)')
      const token = (refreshed.body as { accessToken: string }).accessToken
      noStore(await call('GET', '/auth/me', { token }), 'me')
      noStore(await call('POST', '/auth/logout', { token: (login.body as { accessToken: string }).accessToken }), 'logout')

      // A credential in the URL: kept out of caches and out of the Referer of whatever comes next.
      for (const path of [`/todos?access_token=${token}`, `/auth/me?access_token=${token}`, '/todos?access_token=forged']) {
        const reply = await call('GET', path)
        noStore(reply, path)
        expect(reply.headers.get('referrer-policy'), path).toBe('no-referrer')
      }
      const page = await call('GET', '/reset-password?token=some-reset-token')
      noStore(page, 'reset page')
      expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    },
  )
})

describe('refresh cookie attributes', () => {
  const THIRTY_DAYS = String(30 * 24 * 60 * 60)

  /** Signs up, logs in, refreshes and logs out, returning the cookie each step set. */
  const cookieLife = async (server: RunningServer, name: string) => {
    const a = await newMember(server.base, 'Cookie')
    const login = await request(server.base, 'POST', '/auth/login', {
      body: { email: a.email, password: a.password },
      headers: { 'x-forwarded-for': freshIp() },
    })
    const issued = setCookie(login, name)
    const refreshed = await request(server.base, 'POST', '/auth/refresh', { cookie: `${name}=${issued.value}` })
    expect(refreshed.status).toBe(200)
    const rotated = setCookie(refreshed, name)
    const token = (refreshed.body as { accessToken: string }).accessToken
    const out = await request(server.base, 'POST', '/auth/logout', { token })
    expect(out.status).toBe(204)
    const cleared = setCookie(out, name)
    // Beside the refresh cookie only the sign-in's device cookie: the library never sets the `token` cookie.
    const deviceName = name.replace('__Secure-refresh_token', '__Host-device').replace('refresh_token', 'device')
    const device = setCookie(login, deviceName)
    expect(device.value).toMatch(/^[A-Za-z0-9_-]{22}$/)
    for (const reply of [login, refreshed, out])
      expect(
        reply.headers
          .getSetCookie()
          .filter((l) => !l.startsWith(`${name}=`) && (reply !== login || !l.startsWith(`${deviceName}=`))),
      ).toEqual([])
    return { issued, rotated, cleared, device, member: a }
  }

  it('in development: refresh_token; HttpOnly; SameSite=Strict; Path=/auth; Max-Age 30 days; not Secure; no Domain', async () => {
    const server = await startServer({ env: { NODE_ENV: 'development' } })
    try {
      const { issued, rotated, cleared, device, member } = await cookieLife(server, 'refresh_token')
      expect(device.attributes).toEqual({ 'max-age': '31536000', path: '/auth', httponly: '', samesite: 'Lax' })
      const expected = { 'max-age': THIRTY_DAYS, path: '/auth', httponly: '', samesite: 'Strict' }
      expect(issued.value).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{65}$/)
      expect(issued.attributes).toEqual(expected)
      expect(rotated.attributes).toEqual(expected)
      expect(cleared).toEqual({ value: '', attributes: { ...expected, 'max-age': '0' } })
      // The prefixed name means nothing here.
      const prefixed = await request(server.base, 'POST', '/auth/refresh', { cookie: `__Secure-refresh_token=${member.refresh}` })
      expect(prefixed.status).toBe(401)
    } finally {
      await server.stop()
    }
  })

  for (const [mode, env] of [
    ['production', { NODE_ENV: 'production' }],
    ['development with an https PUBLIC_URL', { NODE_ENV: 'development', PUBLIC_URL: 'https://todo.example.test' }],
  ] as const)
    it(`in ${mode}: __Secure-refresh_token with Secure, and a plain refresh_token is not accepted`, async () => {
      const { server, smtp } = await startServerWithMail({ env })
      try {
        const { issued, rotated, cleared, device, member } = await cookieLife(server, '__Secure-refresh_token')
        // The device cookie is Secure wherever the refresh cookie is, and a __Host- cookie (Path=/,
        // no Domain) so that no sibling host can plant or shadow it.
        expect(device.attributes).toEqual({ 'max-age': '31536000', path: '/', httponly: '', secure: '', samesite: 'Lax' })
        const expected = { 'max-age': THIRTY_DAYS, path: '/auth', httponly: '', secure: '', samesite: 'Strict' }
        expect(issued.attributes).toEqual(expected)
        expect(rotated.attributes).toEqual(expected)
        expect(cleared).toEqual({ value: '', attributes: { ...expected, 'max-age': '0' } })
        // A cookie without the prefix could have been planted over plain http or by a sibling domain.
        const plain = await request(server.base, 'POST', '/auth/refresh', { cookie: `refresh_token=${member.refresh}` })
        expect(plain.status).toBe(401)
        expect(plain.headers.getSetCookie()).toEqual([])
        const prefixed = await request(server.base, 'POST', '/auth/refresh', {
          cookie: `__Secure-refresh_token=${member.refresh}`,
        })
        expect(prefixed.status).toBe(200)
      } finally {
        await server.stop()
        await smtp.close()
      }
    })
})
