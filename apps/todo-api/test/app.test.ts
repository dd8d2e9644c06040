/**
 * The app built in-process, as a host other than main.ts would build it, with no Node response
 * under it: the app-wide security headers and `no-store` still arrive (through `c.header()`), a
 * route's own Cache-Control still wins, and Hono matches through its RegExpRouter (one route
 * pattern it cannot take would send every request through the slower TrieRouter).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'
import { openDatabase } from '../src/db/index.js'
import { createMailer } from '../src/mail.js'

const publicUrl = 'http://localhost:3000'
const db = await openDatabase({ kind: 'sqlite', path: ':memory:' })
const app = createApp({
  secret: 'an-in-process-secret-of-at-least-32-characters',
  db,
  mailer: createMailer({ smtpUrl: null, from: 'todo-api@localhost', publicUrl, production: false, print: () => {} }),
  publicUrl,
  production: false,
  trustProxy: false,
  version: '0.0.0',
  logRequest: () => {},
})
afterAll(() => db.close())

describe('the app in-process', () => {
  it('sends the security headers on successes and errors, no-store on todo routes, and lets a route set its own', async () => {
    const health = await app.request('/health')
    const nowhere = await app.request('/nowhere')
    const todos = await app.request('/todos')
    const asset = await app.request('/docs/swagger-ui.css')
    expect([health.status, nowhere.status, todos.status, asset.status]).toEqual([200, 404, 401, 200])
    for (const reply of [health, nowhere, todos, asset]) {
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
      expect(reply.headers.get('x-frame-options')).toBe('SAMEORIGIN')
      expect(reply.headers.get('referrer-policy')).toBe('no-referrer')
    }
    expect(todos.headers.get('cache-control')).toBe('no-store')
    expect(todos.headers.get('content-type')).toBe('application/problem+json')
    expect(asset.headers.get('cache-control')).toBe('public, max-age=86400')
    expect(health.headers.get('cache-control')).toBeNull()
  })

  it('matches every route through RegExpRouter', async () => {
    await app.request('/health')
    expect(app.router.name).toBe('SmartRouter + RegExpRouter')
  })
})
