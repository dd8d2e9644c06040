/** API keys through the client, against the reference server: made, listed and revoked by a session; used with `{ apiKey }`. */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningServer, startServer, verifyByDevMail } from '../../../apps/todo-api/test/support.js'
import { AuthClientError, createAuthClient } from '../src/index.js'

let server: RunningServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.stop()
})

it('makes a key with a session, calls the todo API with { apiKey } (no refresh), and revokes it', async () => {
  const auth = createAuthClient({ baseUrl: server.base })
  const input = { name: 'Kai', email: `kai-${randomUUID().slice(0, 8)}@example.com`, password: `plum ${randomUUID()}` }
  await auth.signUp(input)
  await verifyByDevMail(server, input.email, input.password)
  const created = await auth.apiKeys.create({ name: 'script', scopes: ['todos:read', 'todos:write'], expiresInDays: 7 })
  expect(created.key).toMatch(/^lk_/)
  expect(await auth.apiKeys.list()).toEqual([expect.objectContaining({ id: created.id, prefix: created.key.slice(0, 12) })])

  const requests: string[] = []
  const script = createAuthClient({
    baseUrl: server.base,
    apiKey: created.key,
    fetch: (url, init) => {
      requests.push(String(url))
      return fetch(url, init)
    },
  })
  expect(await script.getAccessToken()).toBe(created.key)
  const post = await script.fetch('/todos', {
    method: 'POST',
    body: JSON.stringify({ title: 'from a script' }),
    headers: { 'Content-Type': 'application/json' },
  })
  expect(post.status).toBe(201)
  expect((await script.me()).email).toBe(input.email)
  expect(requests.some((url) => url.endsWith('/auth/refresh'))).toBe(false)
  const refused = await script.sessions.list().catch((e: unknown) => e)
  expect(refused).toBeInstanceOf(AuthClientError)
  expect(refused).toMatchObject({ status: 403 })

  await auth.apiKeys.revoke(created.id)
  expect((await script.fetch('/todos')).status).toBe(401)
  expect(() => createAuthClient({ baseUrl: server.base, apiKey: 'not a key' })).toThrow(TypeError)
  auth.close()
  script.close()
})
