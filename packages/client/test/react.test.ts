/**
 * `useSession` over `useSyncExternalStore`: the snapshot is stable between changes (React
 * re-renders in a loop otherwise) and follows sign-in and sign-out.
 */
import { randomUUID } from 'node:crypto'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../../apps/todo-api/test/support.js'
import { type AuthClient, createAuthClient } from '../src/index.js'
import { useSession } from '../src/react.js'

let server: RunningServer

const Who = ({ auth }: { auth: AuthClient }) => {
  const { user } = useSession(auth)
  return createElement('p', null, user ? `Signed in as ${user.name}` : 'Signed out')
}

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => {
  await server?.stop()
})

describe('useSession', () => {
  it('renders who is signed in, from a snapshot that only changes with the user', async () => {
    const auth = createAuthClient({ baseUrl: server.base })
    const render = () => renderToString(createElement(Who, { auth }))
    expect(render()).toBe('<p>Signed out</p>')
    const first = auth.getState()
    expect(auth.getState()).toBe(first)

    let changes = 0
    const unsubscribe = auth.subscribe(() => changes++)
    await auth.signUp({
      name: 'Ada',
      email: `react-${randomUUID().slice(0, 8)}@example.com`,
      password: 'plum tractor react lantern',
    })
    expect(render()).toBe('<p>Signed in as Ada</p>')
    const signedIn = auth.getState()
    await auth.me()
    await auth.refresh()
    // The same user again: the same snapshot, no change reported.
    expect(auth.getState()).toBe(signedIn)
    expect(changes).toBe(1)
    await auth.signOut()
    expect(render()).toBe('<p>Signed out</p>')
    expect(changes).toBe(2)
    unsubscribe()
  })
})
