/**
 * The client against the reference server, over HTTP in Node (where it keeps the refresh cookie
 * itself): one refresh for many callers, one retry after a 401 and never a loop, typed problem
 * documents, and the openapi-fetch middleware.
 */
import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import createClient from 'openapi-fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { paths } from '../../../apps/todo-api/test/generated/openapi.js'
import { type RunningServer, startServer } from '../../../apps/todo-api/test/support.js'
import { AuthClientError, authMiddleware, createAuthClient, NETWORK_ERROR } from '../src/index.js'

let server: RunningServer

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => {
  await server?.stop()
})

/** Lines of the server's request log for `method path status`. */
const served = (line: RegExp) =>
  server
    .stdout()
    .split('\n')
    .filter((l) => line.test(l)).length

const account = () => ({
  name: 'Ada',
  email: `client-${randomUUID().slice(0, 8)}@example.com`,
  password: `plum tractor ${randomUUID().slice(0, 6)} lantern`,
})

/** Waits until the server has logged `count` lines matching `line` (its log is written after the answer). */
const settle = async (line: RegExp, count: number) => {
  for (let i = 0; i < 100 && served(line) < count; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  return served(line)
}

const REFRESH = /^POST \/auth\/refresh \d{3} /

describe('createAuthClient in Node', () => {
  it('signs up, reads guarded routes with the token in memory, and tells subscribers who is signed in', async () => {
    const auth = createAuthClient({ baseUrl: server.base })
    const seen: (string | null)[] = []
    auth.subscribe(() => seen.push(auth.getState().user?.email ?? null))
    const input = account()
    const user = await auth.signUp(input)
    expect(user).toMatchObject({ email: input.email, emailVerified: false })
    const res = await auth.fetch('/todos', {
      method: 'POST',
      body: JSON.stringify({ title: 'from the client' }),
      headers: { 'Content-Type': 'application/json' },
    })
    expect(res.status).toBe(201)
    expect(await auth.me()).toMatchObject({ email: input.email })
    expect(await auth.sessions.list()).toEqual([expect.objectContaining({ current: true })])
    await auth.signOut()
    expect(auth.getState().user).toBeNull()
    expect(seen).toEqual([input.email, null])
    expect((await auth.fetch('/todos')).status).toBe(401)
  })

  it('shares one refresh among 50 concurrent callers', async () => {
    let clock = Date.now()
    const auth = createAuthClient({ baseUrl: server.base, now: () => clock })
    await auth.signUp(account())
    // The token's 15 minutes have passed for the client: every caller needs a new one at once.
    clock += 15 * 60 * 1000
    const before = served(REFRESH)
    const answers = await Promise.all(Array.from({ length: 50 }, () => auth.fetch('/todos')))
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200))
    expect((await settle(REFRESH, before + 1)) - before).toBe(1)
    const again = await Promise.all(Array.from({ length: 50 }, () => auth.refresh()))
    expect(again.every(Boolean)).toBe(true)
    expect((await settle(REFRESH, before + 2)) - before).toBe(2)
    // The new token is fresh by the client's clock: no more refreshes.
    await Promise.all(Array.from({ length: 10 }, () => auth.fetch('/todos')))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(served(REFRESH) - before).toBe(2)
    await auth.signOut()
  })

  it('refreshes and retries once after a 401 invalid_token, and never loops when the session is gone', async () => {
    // A fetch that spoils the token of the first todo read: the server answers 401 invalid_token.
    let spoil = true
    const spoiling: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers)
      if (spoil && String(input).endsWith('/todos') && headers.has('Authorization')) {
        spoil = false
        headers.set('Authorization', 'Bearer spoiled.token.value')
      }
      return fetch(input, { ...init, headers })
    }
    const auth = createAuthClient({ baseUrl: server.base, fetch: spoiling })
    await auth.signUp(account())
    const before = served(REFRESH)
    expect((await auth.fetch('/todos')).status).toBe(200)
    expect((await settle(REFRESH, before + 1)) - before).toBe(1)

    // Another device signs this session out: one refresh (refused), then signed out, no loop.
    const other = createAuthClient({ baseUrl: server.base })
    const input = account()
    await other.signUp(input)
    const victim = createAuthClient({ baseUrl: server.base })
    await victim.signIn({ email: input.email, password: input.password })
    await other.sessions.revokeOthers()
    const start = served(REFRESH)
    const refused = await victim.fetch('/todos')
    expect(refused.status).toBe(401)
    expect((await settle(REFRESH, start + 1)) - start).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(served(REFRESH) - start).toBe(1)
    expect(victim.getState().user).toBeNull()
  })

  it('throws typed problem documents: field errors with codes, and retryAfter on a 429', async () => {
    const auth = createAuthClient({ baseUrl: server.base })
    const bad = await auth.signUp({ name: '', email: 'nope', password: 'password123' }).catch((err: unknown) => err)
    expect(bad).toBeInstanceOf(AuthClientError)
    expect(bad).toMatchObject({ status: 400, code: 'validation-failed' })
    expect((bad as AuthClientError).errors.map((e) => e.code)).toEqual(['too_short', 'invalid_email', 'common_password'])

    const input = account()
    await auth.signUp(input)
    let limited: AuthClientError | undefined
    for (let i = 0; i < 12 && !limited; i++) {
      const err = await auth.signIn({ email: input.email, password: 'wrong guess here' }).catch((e: unknown) => e)
      if (err instanceof AuthClientError && err.status === 429) limited = err
    }
    expect(limited).toMatchObject({ status: 429, code: 'rate-limited' })
    expect(limited?.retryAfter).toBeGreaterThan(0)
  })

  it('gives an openapi-fetch client the token and one retry', async () => {
    const auth = createAuthClient({ baseUrl: server.base })
    await auth.signUp(account())
    const api = createClient<paths>({ baseUrl: server.base })
    api.use(authMiddleware(auth))
    const created = await api.POST('/todos', { body: { title: 'typed' } })
    expect(created.response.status).toBe(201)
    const list = await api.GET('/todos', { params: { query: { limit: 5 } } })
    expect(list.data?.map((t) => t.title)).toEqual(['typed'])
    expect((await api.GET('/auth/me')).data).toMatchObject({ emailVerified: false })

    // The retry after a 401 goes through the openapi-fetch client's own fetch, like the first try.
    const sent: string[] = []
    let spoil = true
    const own = (request: Request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('Authorization')?.slice(0, 12)}`)
      if (spoil) {
        spoil = false
        request.headers.set('Authorization', 'Bearer spoiled.token.value')
      }
      return fetch(request)
    }
    const typed = createClient<paths>({ baseUrl: server.base, fetch: own })
    typed.use(authMiddleware(auth))
    const retried = await typed.GET('/todos')
    expect(retried.response.status).toBe(200)
    expect(sent).toEqual(['GET /todos Bearer eyJhb', 'GET /todos Bearer eyJhb'])
  })

  it('signs out at the server when the token has expired: the refresh cookie alone ends the session', async () => {
    const short = await startServer({ env: { ACCESS_TOKEN_TTL: '1' } })
    try {
      const input = account()
      const keeper = createAuthClient({ baseUrl: short.base })
      await keeper.signUp(input)
      // Two sessions whose tokens expire while their timers are stopped (a sleeping tab): one
      // client knows its token is stale, the other's clock stands still, so only the server says so.
      const knows = createAuthClient({ baseUrl: short.base })
      let frozen = Date.now()
      const stale = createAuthClient({ baseUrl: short.base, now: () => frozen })
      await knows.signIn(input)
      await stale.signIn(input)
      frozen = Date.now()
      knows.close()
      stale.close()
      expect(await keeper.sessions.list()).toHaveLength(3)
      await new Promise((resolve) => setTimeout(resolve, 2100))
      await knows.signOut()
      await stale.signOut()
      expect(knows.getState().user).toBeNull()
      expect(stale.getState().user).toBeNull()
      expect(await keeper.sessions.list()).toEqual([expect.objectContaining({ current: true })])
      expect(short.stdout()).toMatch(/^POST \/auth\/logout 401 /m)
      expect(short.stdout().match(/^POST \/auth\/logout 204 /gm)).toHaveLength(2)
    } finally {
      await short.stop()
    }
  })

  it('never lets a refresh and a sign-out called together leave a live session or a false answer', async () => {
    const input = account()
    const keeper = createAuthClient({ baseUrl: server.base })
    await keeper.signUp(input)
    // Four rounds: eight sign-ins stay under the account's login limit (10 per 15 minutes).
    for (let i = 0; i < 4; i++) {
      const auth = createAuthClient({ baseUrl: server.base })
      await auth.signIn(input)
      // Sign-out first: the refresh asked meanwhile spends nothing and answers false.
      const ending = auth.signOut()
      expect(await auth.refresh()).toBe(false)
      await ending
      expect(auth.getState().user).toBeNull()

      // Refresh first: it finishes (true), then the session it renewed ends.
      await auth.signIn(input)
      const renewing = auth.refresh()
      await auth.signOut()
      expect(await renewing).toBe(true)
      expect(auth.getState().user).toBeNull()
      expect(await auth.getAccessToken()).toBeNull()
    }
    expect(await keeper.sessions.list()).toEqual([expect.objectContaining({ current: true })])
  })

  it('says what most likely happened when fetch gets no answer at all: a typed network-error, status 0', async () => {
    // A loopback port nothing listens on: fetch rejects with a TypeError ("fetch failed").
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const auth = createAuthClient({ baseUrl: `http://127.0.0.1:${closed}` })
    const failure = await auth.signIn({ email: 'ada@example.com', password: 'plum tractor lantern' }).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(AuthClientError)
    expect(failure).toMatchObject({ status: 0, code: NETWORK_ERROR, retryAfter: null })
    expect((failure as AuthClientError).message).toBe(
      `No answer from http://127.0.0.1:${closed}: the server is down, unreachable, or the URL is wrong.`,
    )
    expect((failure as AuthClientError).cause).toBeInstanceOf(TypeError)
    // The same through auth.fetch; an abort stays an abort.
    await expect(auth.fetch('/todos')).rejects.toMatchObject({ code: NETWORK_ERROR })
    const aborted = createAuthClient({ baseUrl: server.base })
    await expect(aborted.fetch('/health', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' })
  })
})

describe('the access token goes to baseUrl only', () => {
  /** A second server on loopback, standing for another host: it records the Authorization header of every request. */
  const elsewhere = async () => {
    const seen: (string | undefined)[] = []
    const other = createHttpServer((req, res) => {
      seen.push(req.headers.authorization)
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]')
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const { port } = other.address() as AddressInfo
    return { base: `http://localhost:${port}`, seen, close: () => new Promise((resolve) => other.close(resolve)) }
  }

  it('refuses a path that does not start with "/" with a TypeError, before any request', async () => {
    const calls: string[] = []
    // The real fetch, watched: every URL the client asks for and whether it carried a token.
    const watched: typeof fetch = (input, init) => {
      calls.push(`${String(input)} ${new Headers(init?.headers).has('authorization')}`)
      return fetch(input, init)
    }
    const auth = createAuthClient({ baseUrl: server.base, fetch: watched })
    await auth.signUp(account())
    calls.length = 0
    const other = await elsewhere()
    try {
      const host = new URL(other.base).host
      for (const path of [`@${host}/x`, `.evil.example/x`, `${host}/x`, `${other.base}/x`, 'todos', '', `\\\\${host}/x`]) {
        await expect(auth.fetch(path), path).rejects.toThrow(TypeError)
      }
      expect(calls).toEqual([])
      expect(other.seen).toEqual([])
      // A path that starts with "/" stays under baseUrl, even one that looks like a host.
      const res = await auth.fetch(`//${host}/x`)
      expect(res.status).toBe(404)
      expect(calls).toEqual([`${server.base}//${host}/x true`])
      expect(other.seen).toEqual([])
    } finally {
      await other.close()
    }
  })

  it('sends the refresh cookie it keeps in Node only where a browser would: paths under /auth', async () => {
    const sent: string[] = []
    const watched: typeof fetch = (input, init) => {
      sent.push(`${new URL(String(input)).pathname} ${new Headers(init?.headers).has('cookie')}`)
      return fetch(input, init)
    }
    const auth = createAuthClient({ baseUrl: server.base, fetch: watched })
    await auth.signUp(account())
    sent.length = 0
    for (const path of ['/todos', '/authors', '/auth-logs', '/auth/../todos', '/auth/%2e%2e/todos', '/auth/me', '/auth'])
      await auth.fetch(path)
    expect(sent).toEqual([
      '/todos false',
      '/authors false',
      '/auth-logs false',
      '/todos false',
      '/todos false',
      '/auth/me true',
      '/auth true',
    ])
    // And the refresh it is kept for still gets it.
    sent.length = 0
    await auth.refresh()
    expect(sent).toEqual(['/auth/refresh true'])
  })

  it('gives an openapi-fetch client pointed at another origin no token', async () => {
    const auth = createAuthClient({ baseUrl: server.base })
    await auth.signUp(account())
    const other = await elsewhere()
    try {
      const api = createClient<paths>({ baseUrl: other.base })
      api.use(authMiddleware(auth))
      expect((await api.GET('/todos')).response.status).toBe(200)
      expect(other.seen).toEqual([undefined])
    } finally {
      await other.close()
    }
  })
})
