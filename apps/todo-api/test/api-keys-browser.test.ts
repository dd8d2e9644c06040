/**
 * API keys in the front end, in Debian's headless Chromium (playwright-core): the account screen
 * lists keys, makes one with the scopes ticked and shows it once with a copy button, and revokes
 * it; the key calls the todo API over HTTP while it lives. Screenshot: test-artifacts/todo-api/api-keys-account.png.
 */
import { describe, expect, it } from 'vitest'
import { browserSuite, screen, signInWithPassword, skipReason, watch } from './browser-support.js'
import { request, signup, verifyByDevMail } from './support.js'

describe.skipIf(skipReason !== null)('API keys in headless Chromium', () => {
  const suite = browserSuite('api-keys')

  it('creates a key with the scopes ticked, shows it once with a copy button, lists and revokes it', {
    timeout: 120_000,
  }, async () => {
    const server = suite.server
    const origin = suite.origin()
    const account = await signup(server.base, 'Keyholder')
    await verifyByDevMail(server, account.email, account.password)
    const context = await suite.browser.newContext()
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
    const page = await context.newPage()
    const problems = watch(page, origin)
    await signInWithPassword(page, origin, account)
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')

    const region = page.getByRole('region', { name: 'API keys' })
    await region.getByLabel('Name').fill('nightly export')
    await region.getByRole('checkbox', { name: /todos:write/ }).check()
    await region.getByRole('button', { name: 'Create the key' }).click()
    const shown = region.getByLabel('Your new API key')
    await shown.waitFor({ timeout: 10_000 })
    const key = await shown.inputValue()
    expect(key).toMatch(/^lk_[0-9A-Za-z]{46}$/)
    await region.getByRole('button', { name: 'Copy' }).click()
    await region.getByText('Copied.').waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key)
    await region.getByText('todos:read, todos:write').waitFor()
    await suite.check(page, 'account')

    expect((await request(server.base, 'POST', '/todos', { token: key, body: { title: 'from the key' } })).status).toBe(201)
    await region.getByRole('button', { name: 'I have stored it' }).click()
    expect(await region.getByLabel('Your new API key').count()).toBe(0)
    await region.getByRole('button', { name: 'Revoke nightly export' }).click()
    await region.getByText(/No API key yet/).waitFor()
    expect((await request(server.base, 'GET', '/todos', { token: key })).status).toBe(401)
    expect(problems.errors()).toEqual([])
    await context.close()
  })
})
