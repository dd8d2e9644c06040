/**
 * The verification page asks for the password when the browser is not signed in
 * (docs/reference/endpoints.md#pages). It cannot read the HttpOnly refresh cookie, so it reads the
 * front end's mark that a session may exist; this keeps the two spelling it alike, and the page
 * saying in plain words what happens without the password.
 */
import { readFileSync } from 'node:fs'
import { OpenAPIHono } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { SIGNED_IN_MARK, tokenPageRoutes } from '../src/routes/token-pages.js'

describe('GET /verify-email', () => {
  it("reads the front end's signed-in mark, asks for the password, and says what happens without it", async () => {
    const main = readFileSync(new URL('../web/src/main.ts', import.meta.url), 'utf8')
    expect(main).toContain(`const SIGNED_IN = '${SIGNED_IN_MARK}'`)
    const app = new OpenAPIHono()
    tokenPageRoutes(app)
    const res = await app.request('/verify-email?token=abc')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = await res.text()
    expect(html).toContain(JSON.stringify(SIGNED_IN_MARK))
    expect(html).toContain('<input id="password" type="password" autocomplete="current-password">')
    expect(html).toContain("confirming removes the account's password and signs out every session")
    expect(html).toContain("credentials: 'same-origin'")
    // The email-change page sends no cookie and asks for nothing.
    const confirm = await (await app.request('/confirm-email?token=abc')).text()
    expect(confirm).not.toContain('id="password"')
    expect(confirm).toContain("credentials: 'omit'")
  })
})
