/**
 * Social sign-in through the client, against the reference server with GitHub configured: the
 * providers, the navigations that start a sign-in and a link, the identities, and what a landing
 * URL says.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import { type RunningServer, startServer } from '../../../apps/todo-api/test/support.js'
import { createAuthClient } from '../src/index.js'

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ env: { GITHUB_CLIENT_ID: 'client-test', GITHUB_CLIENT_SECRET: 'client-test-secret' } })
})
afterAll(async () => {
  await server?.stop()
})
afterEach(() => {
  vi.unstubAllGlobals()
})

it('lists the providers and navigates to the start with returnTo', async () => {
  const auth = createAuthClient({ baseUrl: server.base })
  expect(await auth.oauth.providers()).toEqual([{ id: 'github', name: 'GitHub' }])
  const assign = vi.fn()
  vi.stubGlobal('location', { assign, href: `${server.base}/` })
  auth.oauth.signIn('github', { returnTo: '/account' })
  expect(assign).toHaveBeenCalledWith(`${server.base}/auth/oauth/github?returnTo=%2Faccount`)
  auth.close()
})

it('link needs a verified address; a new account has no identities', async () => {
  const auth = createAuthClient({ baseUrl: server.base })
  await auth.signUp({ name: 'Lin', email: `lin-${randomUUID().slice(0, 8)}@example.com`, password: `plum ${randomUUID()}` })
  expect(await auth.oauth.identities()).toEqual([])
  const refused = await auth.oauth.link('github').catch((e: unknown) => e)
  expect(refused).toMatchObject({ status: 403, code: 'email-unverified' })
  auth.close()
})

it('reads the landing URL', () => {
  const auth = createAuthClient({ baseUrl: 'https://api.example.com' })
  expect(auth.oauth.landing('https://app.example.com/?second_factor=abc')).toEqual({
    secondFactor: 'abc',
    linked: null,
    error: null,
    provider: null,
  })
  expect(auth.oauth.landing('https://app.example.com/account?error=account_exists&provider=github')).toMatchObject({
    error: 'account_exists',
    provider: 'github',
  })
  auth.close()
})
