/**
 * Tabs of one origin, played by clients in one process against the reference server: they share
 * a cookie jar (as a browser's tabs do), a BroadcastChannel and a lock manager. Past expiry
 * together, one refresh reaches the server; a refresh that loses a race takes the winner's token
 * instead of signing out; signing out in one signs out the other. The browser version of this is
 * apps/todo-api/test/web.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../../apps/todo-api/test/support.js'
import { type AuthClient, createAuthClient, type LockManagerLike } from '../src/index.js'

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

/** Web Locks in one process: requests for a name run one after another. */
const inProcessLocks = (): LockManagerLike => {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    request<T>(_name: string, callback: () => Promise<T>) {
      const run = tail.then(callback)
      tail = run.catch(() => undefined)
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
  const tabs = (clock: () => number, sharedLocks = true) => {
    const name = `test-${randomUUID()}`
    const fetch = sharedJar()
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
    return pair
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
    expect((await first.fetch('/todos')).status).toBe(401)
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

  it('is off in Node unless asked for: two clients of one process stay apart', async () => {
    const first = createAuthClient({ baseUrl: server.base })
    const second = createAuthClient({ baseUrl: server.base })
    open.push(first, second)
    await first.signUp(account())
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second.getState().user).toBeNull()
  })
})
