/**
 * Every screen of the front end and of the pages the mails link to, in Debian's headless
 * Chromium: a screenshot of each (test-artifacts/todo-api/screen-*.png), an axe-core audit of
 * each with zero violations (axe-core's own script evaluated in the page over the DevTools
 * protocol, so the page's CSP stays as served), and what a newcomer saw go wrong: feedback shown
 * and not only spoken, field errors without "The request does not match the schema.", sessions
 * named by device with short button names, "You were signed out" at the first refused refresh,
 * the Add button level with its input, and no Chromium warning about password forms.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, ARTIFACTS, audit, CHROMIUM, screen, skipReason, watch } from './browser-support.js'
import { REPO_ROOT, type RunningServer, signup, startServer } from './support.js'

/** How long the client waits for another tab's token after a refused refresh (PEER_WAIT_MS in packages/client/src/cross-tab.ts). */
const PEER_WAIT_MS = 3000

describe.skipIf(skipReason !== null)('every screen in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  const origin = () => `http://localhost:${server.port}`

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    server = await startServer()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  /** A fresh browser on the front end, with everything Chromium printed to its console kept. */
  const open = async (path = '/', context?: BrowserContext) => {
    const ctx = context ?? (await browser.newContext())
    const page = await ctx.newPage()
    const problems = watch(page, origin())
    const consoleLines: string[] = []
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`))
    await page.goto(`${origin()}${path}`)
    return { context: ctx, page, problems, consoleLines }
  }

  /** The screenshot and the audit of one screen. */
  const check = async (page: Page, name: string) => {
    await page.screenshot({ path: join(ARTIFACTS, `screen-${name}.png`), fullPage: true })
    expect(await audit(page), name).toEqual([])
  }

  it('signed out: sign in (and its refused form), sign up, forgot password', { timeout: 90_000 }, async () => {
    const { context, page, problems } = await open()
    await screen(page, 'Sign in')
    await check(page, 'sign-in')

    // Empty fields: the server's field errors sit under their fields; the summary says something a person understands.
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    const form = page.getByRole('form', { name: 'Sign in' })
    await form.locator('.field-error:not(:empty)').first().waitFor({ timeout: 10_000 })
    const summary = (await form.getByRole('alert').textContent()) ?? ''
    expect(summary).not.toMatch(/schema/i)
    expect(summary).toBe('Check the email above.')
    await check(page, 'sign-in-refused')

    await page.getByRole('link', { name: 'Create an account' }).click()
    await screen(page, 'Create an account')
    await check(page, 'sign-up')
    await page.getByRole('link', { name: 'Sign in' }).last().click()
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await screen(page, 'Forgot your password?')
    await check(page, 'forgot-password')
    // The refused sign-in's 400 is the one error Chromium logs.
    expect(problems.errors().filter((line) => !/status of 400 .*\/auth\/login\)$/.test(line))).toEqual([])
    await context.close()
  })

  it('signed in: todos (empty and full), the account screen, visible feedback, no password-form warnings', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base, 'Screens')
    const { context, page, problems, consoleLines } = await open()
    await screen(page, 'Sign in')
    await page.getByLabel('Email').fill(account.email)
    await page.getByLabel('Password').fill(account.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await screen(page, 'Todos')
    await page.getByText('Nothing to do yet. Add your first todo above.').waitFor()
    await check(page, 'todos-empty')

    // The Add button stands level with its input.
    const input = await page.getByLabel('New todo').boundingBox()
    const add = await page.getByRole('button', { name: 'Add' }).boundingBox()
    expect(Math.abs((input?.y ?? 0) + (input?.height ?? 0) - ((add?.y ?? 0) + (add?.height ?? 0)))).toBeLessThanOrEqual(1)
    expect(Math.abs((input?.height ?? 0) - (add?.height ?? 0))).toBeLessThanOrEqual(2)

    for (const title of ['Buy milk', 'Write the report']) {
      await page.getByLabel('New todo').fill(title)
      await page.getByRole('button', { name: 'Add' }).click()
      await page.getByRole('list', { name: 'Todos' }).getByText(title, { exact: true }).waitFor()
    }
    await page.getByLabel('Buy milk', { exact: true }).check()
    await page.getByText('Buy milk: done').waitFor()
    await check(page, 'todos')
    // Keyboard focus is visible on a control: an outline of at least 2 px.
    await page.getByLabel('New todo').focus()
    await page.keyboard.press('Tab')
    const ring = await page.evaluate<{ style: string; width: number }>(
      '(({ outlineStyle, outlineWidth }) => ({ style: outlineStyle, width: Number.parseFloat(outlineWidth) }))(getComputedStyle(document.activeElement))',
    )
    expect(ring.style).not.toBe('none')
    expect(ring.width).toBeGreaterThanOrEqual(2)

    // A toast of the todo list (on screen for 8 s) does not cover the next screen's text.
    await page.getByLabel('Buy milk', { exact: true }).uncheck()
    await page.getByText('Buy milk: not done').waitFor()
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    expect(await page.locator('#announce').textContent()).toBe('')
    const sessions = page.getByRole('list', { name: 'Sessions' })
    await expect.poll(() => sessions.locator('li').count()).toBe(2)
    await check(page, 'account')

    // Sessions: a device name, not the User-Agent; "This device"; the sign-in time and IP; short button names.
    const rows = await sessions.locator('li').allInnerTexts()
    expect(rows.join('\n')).not.toMatch(/Mozilla|AppleWebKit/)
    expect(rows.filter((row) => row.includes('This device'))).toHaveLength(1)
    for (const row of rows) expect(row).toMatch(/Signed in .+ · last active .+ · IP (127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)/)
    expect(rows.find((row) => row.includes('This device'))).toMatch(/^Chrome.* on Linux/)
    const names = await sessions
      .getByRole('button')
      .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? ''))
    expect(names).toHaveLength(1)
    for (const name of names) {
      expect(name).toMatch(/^Sign out .+, signed in /)
      expect(name.length).toBeLessThanOrEqual(70)
    }

    // Feedback that was only spoken is on screen too, in the live region.
    const section = page.getByRole('region', { name: 'Password' })
    await section.getByLabel('Current password').fill(account.password)
    await section.getByLabel('New password').fill(`${account.password} too`)
    await section.getByRole('button', { name: 'Change password' }).click()
    const toast = page.getByRole('status').filter({ hasText: 'Password changed' })
    await toast.waitFor({ state: 'visible', timeout: 10_000 })
    expect(await toast.getAttribute('aria-live')).toBe('polite')
    expect((await toast.boundingBox())?.height ?? 0).toBeGreaterThan(20)
    await check(page, 'account-feedback')
    await expect.poll(() => sessions.locator('li').count()).toBe(1)
    await page.getByText('No other device is signed in.').waitFor()

    // Chromium's DOM warnings come as verbose console lines; none about password forms.
    expect(consoleLines.filter((line) => /Password forms should have/.test(line))).toEqual([])
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('says "You were signed out" at the first refused refresh when the session is revoked elsewhere', {
    timeout: 60_000,
    // A browser on a loaded 2-core machine now and then misses its wait; each try signs up anew.
    retry: 2,
  }, async () => {
    const account = await signup(server.base, 'Revoked')
    const other = await open()
    await screen(other.page, 'Sign in')
    await other.page.getByLabel('Email').fill(account.email)
    await other.page.getByLabel('Password').fill(account.password)
    await other.page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await screen(other.page, 'Todos')
    const revoked = await fetch(`${server.base}/auth/sessions`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${account.token}` },
    })
    expect(revoked.status).toBe(204)

    const refusedBefore = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('POST /auth/refresh 401')).length
    await other.page.getByLabel('New todo').fill('Too late')
    await other.page.getByRole('button', { name: 'Add' }).click()
    // Before the wait for another tab's token (PEER_WAIT_MS) ran out: no other tab is in line.
    await other.page.getByText('You were signed out.').waitFor({ timeout: PEER_WAIT_MS - 500 })
    await screen(other.page, 'Sign in')
    const refused = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('POST /auth/refresh 401')).length
    expect(refused - refusedBefore).toBe(1)
    await check(other.page, 'signed-out-elsewhere')
    await other.context.close()
  })

  it("tells a page on an origin the API does not trust what most likely happened (the client's network-error)", {
    timeout: 60_000,
  }, async () => {
    // The built @latchkey/client, served to the page from its own origin; the page's CSP is
    // bypassed so that the request really goes out and the browser's CORS check refuses it.
    const context = await browser.newContext({ bypassCSP: true })
    const dist = join(REPO_ROOT, 'packages', 'client', 'dist')
    await context.route('**/__client/*.js', (route) =>
      route.fulfill({ path: join(dist, basename(new URL(route.request().url()).pathname)), contentType: 'text/javascript' }),
    )
    const { page } = await open('/', context)
    await screen(page, 'Sign in')
    // 127.0.0.1 is another origin than localhost, and the server trusts only its PUBLIC_URL's.
    const failure = await page.evaluate<{ name: string; code: string; status: number; message: string; cause: string }>(
      `import('/__client/index.js').then(async ({ createAuthClient }) => {
        const auth = createAuthClient({ baseUrl: ${JSON.stringify(server.base)} })
        try {
          await auth.signIn({ email: 'ada@example.com', password: 'plum tractor lantern' })
          return null
        } catch (e) {
          return { name: e.name, code: e.code, status: e.status, message: e.message, cause: String(e.cause) }
        }
      })`,
    )
    expect(failure).toMatchObject({ name: 'AuthClientError', code: 'network-error', status: 0 })
    expect(failure.cause).toMatch(/TypeError/)
    expect(failure.message).toContain(`This page (${origin()}) is on another origin`)
    expect(failure.message).toMatch(/CORS.*trustedOrigins.*TRUSTED_ORIGINS.*A front end on another origin/)
    await context.close()
  })

  it.each([
    { path: '/verify-email', title: 'Confirm your email address' },
    { path: '/confirm-email', title: 'Confirm your new email address' },
    { path: '/reset-password', title: 'Reset your password' },
  ])('$path has the app header and a way back', { timeout: 60_000 }, async ({ path, title }) => {
    const { context, page, problems, consoleLines } = await open(`${path}?token=${randomUUID()}`)
    await screen(page, title)
    expect(await page.getByRole('banner').getByRole('link', { name: 'Latchkey todos' }).getAttribute('href')).toBe('/')
    await page.getByRole('link', { name: 'Back to Latchkey todos' }).waitFor()
    await check(page, path.slice(1))
    await page.getByRole('link', { name: 'Back to Latchkey todos' }).click()
    await screen(page, 'Sign in')
    expect(consoleLines.filter((line) => /Password forms should have/.test(line))).toEqual([])
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('/docs, the API reference, passes axe and loads nothing from elsewhere', { timeout: 60_000 }, async () => {
    const { context, page, problems } = await open('/docs')
    const requested: string[] = []
    page.on('request', (req) => requested.push(new URL(req.url()).origin))
    await page.reload()
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 })
    await check(page, 'api-docs')
    // An operation opened (the schemas are open from the start): still nothing.
    await page.locator('.opblock-summary-control').first().click()
    await page.locator('.opblock-body').first().waitFor()
    await check(page, 'api-docs-open')
    expect(new Set(requested)).toEqual(new Set([origin()]))
    expect(problems.errors()).toEqual([])
    await context.close()
  })
})
