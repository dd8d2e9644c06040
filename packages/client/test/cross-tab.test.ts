/**
 * Tabs of one origin, played by clients in one process against the reference server: they share
 * a cookie jar (as a browser's tabs do), a BroadcastChannel and a lock manager. Past expiry
 * together, one refresh reaches the server; a refresh that loses a race takes the winner's token
 * instead of signing out; signing out in one signs out the other. The browser version of this is
 * apps/todo-api/test/web.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningServer, startServer } from '../../../apps/todo-api/test/support.js'
import {
  type AuthClient,
  CROSS_TAB_CHANNEL,
  CROSS_TAB_LOCK,
  type CrossTabMessage,
  createAuthClient,
  type LockManagerLike,
} from '../src/index.js'

let server: RunningServer

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => {
  await server?.stop()
})

const REFRESH = /^POST \/auth\/refresh (\d{3}) /
const refreshes = () =>
  server
    .stdout()
    .split('\n')
    .filter((line) => REFRESH.test(line))

const mes = () =>
  server
    .stdout()
    .split('\n')
    .filter((line) => /^GET \/auth\/me \d{3} /.test(line)).length

/** Waits until the server has logged `count` refreshes (its log is written after the answer). */
const settle = async (count: number) => {
  for (let i = 0; i < 100 && refreshes().length < count; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  return refreshes()
}

const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

/** One cookie jar for several clients, as a browser has for its tabs. */
const sharedJar = (): typeof fetch => {
  let cookie: string | null = null
  return async (input, init) => {
    const headers = new Headers(init?.headers)
    if (cookie && String(input).includes('/auth/')) headers.set('Cookie', cookie)
    const response = await fetch(input, { ...init, headers })
    for (const line of response.headers.getSetCookie())
      if (/^(__Secure-)?refresh_token=/.test(line)) cookie = /Max-Age=0/i.test(line) ? null : (line.split(';')[0] ?? null)
    return response
  }
}

/** Web Locks in one process: requests for a name run one after another; `names` records each request. */
const inProcessLocks = (names: string[] = []): LockManagerLike => {
  const tails = new Map<string, Promise<unknown>>()
  return {
    request<T>(name: string, callback: () => Promise<T>) {
      names.push(name)
      const run = (tails.get(name) ?? Promise.resolve()).then(callback)
      tails.set(
        name,
        run.catch(() => undefined),
      )
      return run
    },
  }
}

const account = () => ({
  name: 'Tabs',
  email: `tabs-${randomUUID().slice(0, 8)}@example.com`,
  password: `plum tractor ${randomUUID().slice(0, 6)} lantern`,
})

describe('cross-tab', () => {
  const open: AuthClient[] = []
  afterAll(() => {
    for (const client of open) client.close()
  })

  /** Two tabs on one jar and channel; `sharedLocks: false` gives each its own lock manager. */
  const tabs = (clock: () => number, sharedLocks = true, fetch = sharedJar()) => {
    const name = `test-${randomUUID()}`
    const locks = inProcessLocks()
    const tab = () =>
      createAuthClient({
        baseUrl: server.base,
        fetch,
        cookieJar: false,
        now: clock,
        crossTab: { name, locks: sharedLocks ? locks : inProcessLocks() },
      })
    const pair = [tab(), tab()] as const
    open.push(...pair)
    return Object.assign(pair, { name, fetch })
  }

  it('past expiry together, two tabs send one refresh; sign-in and sign-out reach the other tab', async () => {
    let clock = Date.now()
    const [first, second] = tabs(() => clock)
    const input = account()
    await first.signUp(input)
    await until(() => second.getState().user?.email === input.email, 'the second tab to take the token')

    clock += 15 * 60 * 1000
    const before = refreshes().length
    const answers = await Promise.all([first.fetch('/todos'), second.fetch('/todos'), first.fetch('/todos')])
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200])
    const seen = (await settle(before + 1)).slice(before)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(refreshes().slice(before)).toEqual(seen)
    expect(seen).toHaveLength(1)

    await second.signOut()
    await until(() => first.getState().user === null, 'the first tab to sign out')
    // Signed out, a tab's refusal is answered at once: no wait for another tab's token.
    const started = Date.now()
    expect((await first.fetch('/todos')).status).toBe(401)
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('after a reload, two tabs that both ask for a refresh send one, and both learn who is signed in', async () => {
    const clock = () => Date.now()
    const fetch = sharedJar()
    // The page before the reload: its cookie is in the jar, its token is gone with it.
    const before = createAuthClient({ baseUrl: server.base, fetch, cookieJar: false, crossTab: false })
    const input = account()
    await before.signUp(input)
    const [first, second] = tabs(clock, true, fetch)
    const start = refreshes().length
    const meBefore = mes()
    expect(await Promise.all([first.refresh(), second.refresh()])).toEqual([true, true])
    expect(first.getState().user?.email).toBe(input.email)
    expect(second.getState().user?.email).toBe(input.email)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(refreshes().slice(start)).toHaveLength(1)
    // The refreshing tab asked who it is and sent the answer with its token: one GET /auth/me.
    expect(mes() - meBefore).toBe(1)
    expect(await first.getAccessToken()).toBe(await second.getAccessToken())
  })

  it('a refresh that loses a race takes the winner’s token instead of signing out, and nothing is revoked', async () => {
    let clock = Date.now()
    // No common lock: both refreshes reach the server with the same cookie at once.
    const [first, second] = tabs(() => clock, false)
    await first.signUp(account())
    await until(() => second.getState().user !== null, 'the second tab to take the token')
    clock += 15 * 60 * 1000
    const before = refreshes().length
    const [a, b] = await Promise.all([first.refresh(), second.refresh()])
    expect([a, b]).toEqual([true, true])
    const seen = (await settle(before + 2)).slice(before)
    expect(seen.map((line) => REFRESH.exec(line)?.[1]).sort()).toEqual(['200', '401'])
    expect(first.getState().user).not.toBeNull()
    expect(second.getState().user).not.toBeNull()
    // The session lives on: the winner's cookie refreshes again, and both tabs read.
    clock += 15 * 60 * 1000
    expect((await first.fetch('/todos')).status).toBe(200)
    expect((await second.fetch('/todos')).status).toBe(200)
  })

  it('a refused refresh of a signed-in tab (the session revoked elsewhere) signs out the other tab too', async () => {
    let clock = Date.now()
    const [first, second] = tabs(() => clock)
    const input = account()
    await first.signUp(input)
    await until(() => second.getState().user !== null, 'the second tab to take the token')
    const device = createAuthClient({ baseUrl: server.base })
    await device.signIn(input)
    await device.sessions.revokeOthers()
    clock += 15 * 60 * 1000
    // No other tab's token comes: after its short wait the first tab is signed out, and tells.
    expect(await first.refresh()).toBe(false)
    expect(first.getState().user).toBeNull()
    await until(() => second.getState().user === null, 'the second tab to sign out')
    await device.signOut()
  })

  it('a tab without a session is refused at once and does not sign out the others', async () => {
    const pair = tabs(() => Date.now())
    const [first] = pair
    await first.signUp(account())
    // A tab on the same channel whose requests carry no cookie (its own empty jar).
    const stranger = createAuthClient({
      baseUrl: server.base,
      cookieJar: false,
      fetch: sharedJar(),
      crossTab: { name: pair.name, locks: inProcessLocks() },
    })
    open.push(stranger)
    const started = Date.now()
    expect(await stranger.refresh()).toBe(false)
    expect(Date.now() - started).toBeLessThan(1000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(first.getState().user).not.toBeNull()
  })

  it('crossTab: true with navigator.locks uses the default lock and channel, and says what the brief says', async () => {
    const names: string[] = []
    vi.stubGlobal('navigator', { locks: inProcessLocks(names) })
    const listener = new BroadcastChannel(CROSS_TAB_CHANNEL)
    const heard: CrossTabMessage[] = []
    listener.addEventListener('message', (event: MessageEvent<CrossTabMessage>) => heard.push(event.data))
    try {
      let clock = Date.now()
      const auth = createAuthClient({ baseUrl: server.base, crossTab: true, now: () => clock })
      open.push(auth)
      const input = account()
      const user = await auth.signUp(input)
      await until(() => heard.length === 1, 'the sign-in message')
      expect(heard[0]).toEqual({
        type: 'token',
        accessToken: expect.any(String),
        expiresIn: 900,
        user,
        api: `${server.base}/auth`,
      })
      clock += 15 * 60 * 1000
      expect((await auth.fetch('/todos')).status).toBe(200)
      expect(names).toEqual([CROSS_TAB_LOCK])
      await until(() => heard.length === 2, 'the refresh message')
      expect(heard[1]).toMatchObject({ type: 'token', user })
      expect(heard[1]).not.toMatchObject({ accessToken: heard[0]?.type === 'token' ? heard[0].accessToken : '' })

      // A message of another API on the same channel is not this client's.
      listener.postMessage({ type: 'signed-out', api: 'https://elsewhere.example/auth' })
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(auth.getState().user).toEqual(user)
      // One without `api` (another implementation) is: a sign-out elsewhere signs this client out.
      listener.postMessage({ type: 'signed-out' })
      await until(() => auth.getState().user === null, 'the sign-out to arrive')

      await auth.signIn(input)
      await auth.signOut()
      await until(() => heard.at(-1)?.type === 'signed-out', 'the sign-out message')
      expect(heard.at(-1)).toEqual({ type: 'signed-out', api: `${server.base}/auth` })
    } finally {
      listener.close()
      vi.unstubAllGlobals()
    }
  })

  it('is off without a lock manager even when asked for (Node 20 has no navigator.locks)', async () => {
    const name = `test-${randomUUID()}`
    const first = createAuthClient({ baseUrl: server.base, crossTab: { name } })
    const second = createAuthClient({ baseUrl: server.base, crossTab: { name } })
    open.push(first, second)
    await first.signUp(account())
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second.getState().user).toBeNull()
  })

  it('is off in Node unless asked for: two clients of one process stay apart', async () => {
    const first = createAuthClient({ baseUrl: server.base })
    const second = createAuthClient({ baseUrl: server.base })
    open.push(first, second)
    await first.signUp(account())
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second.getState().user).toBeNull()
  })
})
