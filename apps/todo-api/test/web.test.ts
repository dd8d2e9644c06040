/**
 * The front end at `/`, in Debian's headless Chromium (playwright-core, never a downloaded
 * browser), against the built server and a real SMTP server on loopback: the whole journey, the
 * refresh dance across token expiries and across two tabs, the sessions screen, the
 * two-factor sign-in, and the step-up dialog of an account action after the fresh window. Refreshes are counted where they land: the server's request log.
 * Screenshots go to test-artifacts/todo-api/web-*.png.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import * as OTPAuth from 'otpauth'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, ARTIFACTS, CHROMIUM, expectDeleted, screen, skipReason, watch } from './browser-support.js'
import { type RunningServer, request, signup, startServerWithMail, type startSmtp } from './support.js'

/** Seconds an access token lives on the server of the expiry tests. */
const TTL = 4
/** Seconds a session stays fresh on the server of the step-up test. */
const FRESH_AGE = 2

const password = () => `amber ${randomUUID().slice(0, 6)} canal whistle`
const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `web-${name}.png`), fullPage: true })

/** The heading of the screen on show. */

/** The refreshes the server answered, from its request log (`POST /auth/refresh 200 3ms`). */
const refreshes = (server: RunningServer) =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('POST /auth/refresh '))

/** The error lines a user would see on the page (form summaries and list errors). */
const visibleErrors = async (page: Page) =>
  (await page.locator('[role="alert"]').allInnerTexts()).map((text) => text.trim()).filter((text) => text !== '')

const signUpIn = async (page: Page, name: string, email: string, pass: string) => {
  await page.getByRole('link', { name: 'Sign up' }).first().click()
  await screen(page, 'Create an account')
  await page.getByLabel('Name').fill(name)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(pass)
  await page.getByRole('button', { name: 'Sign up' }).click()
  await screen(page, 'Todos')
}

const signIn = async (page: Page, email: string, pass: string) => {
  await screen(page, 'Sign in')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(pass)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

const addTodo = async (page: Page, title: string) => {
  await page.getByLabel('New todo').fill(title)
  await page.getByRole('button', { name: 'Add' }).click()
  await page.getByRole('list', { name: 'Todos' }).getByText(title, { exact: true }).waitFor({ timeout: 10_000 })
}

const todoTitles = (page: Page) => page.getByRole('list', { name: 'Todos' }).locator('li label').allInnerTexts()

describe.skipIf(skipReason !== null)('the front end in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  /** A server whose access tokens live {@link TTL} seconds. */
  let shortLived: RunningServer
  /** A server whose sessions are fresh for {@link FRESH_AGE} seconds (`AUTH_FRESH_AGE`), and its mail. */
  let stepUp: RunningServer
  let stepUpMail: Awaited<ReturnType<typeof startSmtp>>

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    ;({ server, smtp } = await startServerWithMail())
    ;({ server: shortLived } = await startServerWithMail({ env: { ACCESS_TOKEN_TTL: String(TTL) } }))
    ;({ server: stepUp, smtp: stepUpMail } = await startServerWithMail({ env: { AUTH_FRESH_AGE: String(FRESH_AGE) } }))
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await shortLived?.stop()
    await stepUp?.stop()
    await smtp?.close()
    await stepUpMail?.close()
  })

  const origin = (s: RunningServer) => `http://localhost:${s.port}`

  const open = async (s: RunningServer, context?: BrowserContext) => {
    const ctx = context ?? (await browser.newContext())
    const page = await ctx.newPage()
    const problems = watch(page, origin(s))
    await page.goto(`${origin(s)}/`)
    return { context: ctx, page, problems }
  }

  it('serves the page with a strict CSP, revalidated; its hashed assets for a year', async () => {
    const index = await request(server.base, 'GET', '/')
    expect(index.status).toBe(200)
    expect(index.headers.get('cache-control')).toBe('no-cache')
    const csp = index.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("style-src 'self'")
    expect(csp).not.toContain('unsafe')
    expect(index.text).not.toMatch(/<script>|<style>|\sstyle=|\son\w+=/)
    const assets = [...index.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.length).toBeGreaterThanOrEqual(2)
    for (const path of assets) {
      const asset = await request(server.base, 'GET', path)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    }
    expect((await request(server.base, 'GET', '/assets/..%2f..%2fpackage.json')).status).toBe(404)
    expect((await request(server.base, 'GET', '/assets/missing.js')).status).toBe(404)
  })

  it('the whole journey: sign up, verify the email from the mail, todos, sign out, sign in', { timeout: 90_000 }, async () => {
    const { context, page, problems } = await open(server)
    await screen(page, 'Sign in')
    await shot(page, 'sign-in')
    const email = `journey-${randomUUID().slice(0, 8)}@example.com`
    const pass = password()
    const mailsBefore = smtp.mails.length
    await signUpIn(page, 'Grace', email, pass)
    await shot(page, 'signed-up')

    // The verification link from the mail, opened in the same browser; its button verifies.
    const mail = await smtp.waitFor(email, mailsBefore, 5_000, 'verify-email')
    const link = /https?:\/\/\S+\/verify-email\?token=[\w%.~-]+/.exec(mail.text)?.[0]
    if (!link) throw new Error(`no verification link in:\n${mail.text}`)
    const verify = await context.newPage()
    await verify.goto(link)
    await verify.click('#confirm')
    await verify.locator('#status', { hasText: 'Your email address is confirmed' }).waitFor({ timeout: 10_000 })
    await verify.close()
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    await page.getByText('(verified)').waitFor({ timeout: 10_000 })
    await page.getByRole('link', { name: 'Todos', exact: true }).click()
    await screen(page, 'Todos')

    for (const title of ['Buy milk', 'Write the report', 'Call Ada']) await addTodo(page, title)
    expect(await todoTitles(page)).toEqual(['Call Ada', 'Write the report', 'Buy milk'])
    await page.getByLabel('Write the report', { exact: true }).check()
    await page.getByText('Write the report: done').waitFor({ state: 'attached', timeout: 5_000 })
    await page.getByLabel('Done', { exact: true }).check()
    await expect.poll(() => todoTitles(page)).toEqual(['Write the report'])
    await page.getByLabel('Open', { exact: true }).check()
    await expect.poll(() => todoTitles(page)).toEqual(['Call Ada', 'Buy milk'])
    await page.getByRole('button', { name: 'Delete Buy milk' }).click()
    await expect.poll(() => todoTitles(page)).toEqual(['Call Ada'])
    await page.getByLabel('All', { exact: true }).check()
    await expect.poll(() => todoTitles(page)).toEqual(['Call Ada', 'Write the report'])
    await shot(page, 'todos')

    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await screen(page, 'Sign in')
    await page.getByText('You are signed out.').waitFor()
    await signIn(page, email, pass)
    await screen(page, 'Todos')
    await expect.poll(() => todoTitles(page)).toEqual(['Call Ada', 'Write the report'])
    // A reload keeps the session: the access token was in memory only, the cookie refreshes it.
    await page.reload()
    await screen(page, 'Todos')
    expect(await page.evaluate<string>('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).not.toMatch(/eyJ/)
    expect(problems.errors()).toEqual([])
    expect(await visibleErrors(page)).toEqual([])
    await context.close()
  })

  it('keeps working across several token expiries with one refresh per expiry', { timeout: 90_000 }, async () => {
    const { context, page, problems } = await open(shortLived)
    await signUpIn(page, 'Expiry', `expiry-${randomUUID().slice(0, 8)}@example.com`, password())
    const before = refreshes(shortLived).length
    const started = Date.now()
    // Four lifetimes of a token, working all along.
    for (let i = 0; Date.now() - started < TTL * 4 * 1000; i++) {
      await addTodo(page, `Task ${i}`)
      await page.waitForTimeout(700)
    }
    const elapsed = (Date.now() - started) / 1000
    const seen = refreshes(shortLived).slice(before)
    await shot(page, 'after-expiries')
    expect(
      seen.every((line) => / 200 /.test(line)),
      seen.join('\n'),
    ).toBe(true)
    // At least one per lifetime (the page never ran on an expired token) and at most one per
    // half-lifetime (the client refreshes halfway; never twice for one token).
    expect(seen.length).toBeGreaterThanOrEqual(Math.floor(elapsed / TTL))
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(elapsed / (TTL / 2)) + 1)
    expect(shortLived.stdout()).not.toMatch(/GET \/todos 401|POST \/todos 401/)
    expect(await visibleErrors(page)).toEqual([])
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('two tabs past expiry together: one refresh reaches the server, both keep working; sign-out reaches both', {
    timeout: 90_000,
  }, async () => {
    const first = await open(shortLived)
    await signUpIn(first.page, 'Tabs', `tabs-${randomUUID().slice(0, 8)}@example.com`, password())
    const second = await open(shortLived, first.context)
    await screen(second.page, 'Todos')
    const before = refreshes(shortLived).length
    const started = Date.now()
    for (let i = 0; Date.now() - started < TTL * 3 * 1000; i++) {
      await addTodo(first.page, `First ${i}`)
      await addTodo(second.page, `Second ${i}`)
      await first.page.waitForTimeout(500)
    }
    const elapsed = (Date.now() - started) / 1000
    const seen = refreshes(shortLived).slice(before)
    // Two tabs refreshing on their own would make about twice as many.
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(elapsed / (TTL / 2)) + 1)
    expect(
      seen.every((line) => / 200 /.test(line)),
      seen.join('\n'),
    ).toBe(true)
    // The session was never taken for a stolen one (a reuse revokes it and audits it).
    expect(shortLived.stdout()).not.toContain('refresh.reuse_detected')
    await shot(first.page, 'tab-one')
    await shot(second.page, 'tab-two')

    await first.page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await screen(first.page, 'Sign in')
    await screen(second.page, 'Sign in')
    expect(await visibleErrors(second.page)).toEqual([])
    expect(first.problems.errors()).toEqual([])
    expect(second.problems.errors()).toEqual([])
    await first.context.close()
  })

  it('the sessions screen signs out another browser, which finds itself signed out at its next request', {
    timeout: 90_000,
  }, async () => {
    const account = await signup(server.base, 'Sessions')
    const mine = await open(server)
    await signIn(mine.page, account.email, account.password)
    await screen(mine.page, 'Todos')
    const other = await open(server)
    await signIn(other.page, account.email, account.password)
    await screen(other.page, 'Todos')

    await mine.page.getByRole('link', { name: 'Account' }).click()
    await screen(mine.page, 'Account')
    const sessions = mine.page.getByRole('list', { name: 'Sessions' })
    // The one made by signup() above, the other browser and this one.
    await expect.poll(() => sessions.locator('li').count()).toBe(3)
    await shot(mine.page, 'sessions')
    await mine.page.getByRole('button', { name: 'Sign out everywhere else' }).click()
    await expect.poll(() => sessions.locator('li').count()).toBe(1)

    await other.page.getByLabel('New todo').fill('Too late')
    await other.page.getByRole('button', { name: 'Add' }).click()
    await screen(other.page, 'Sign in')
    await other.page.getByText('You were signed out.').waitFor()
    await shot(other.page, 'signed-out-elsewhere')
    expect((await request(server.base, 'GET', '/auth/me', { token: account.token })).status).toBe(401)
    expect(mine.problems.errors()).toEqual([])
    await mine.context.close()
    await other.context.close()
  })

  it('deletes the account from the account screen on a fresh session, and signs out for good', {
    timeout: 60_000,
  }, async () => {
    const account = await signup(server.base, 'Leaving')
    const { context, page } = await open(server)
    await signIn(page, account.email, account.password)
    await screen(page, 'Todos')
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    const section = page.getByRole('region', { name: 'Delete the account' })
    // Signed in just now: the session is proof enough, no password is asked.
    await section.getByRole('button', { name: 'Delete my account' }).click()
    await expectDeleted(page, server.base, account)
    await context.close()
  })

  it('sets up two-factor sign-in from the account screen, then signs in through the code step', { timeout: 90_000 }, async () => {
    const { context, page, problems } = await open(server)
    const email = `second-${randomUUID().slice(0, 8)}@example.com`
    const pass = password()
    const mailsBefore = smtp.mails.length
    await signUpIn(page, 'Second', email, pass)
    // Two-factor needs a verified address: the link from the mail.
    const verifyMail = await smtp.waitFor(email, mailsBefore, 5_000, 'verify-email')
    const token = decodeURIComponent(/verify-email\?token=([\w%.~-]+)/.exec(verifyMail.text)?.[1] ?? '')
    expect((await request(server.base, 'POST', '/auth/verify-email', { body: { token, password: pass } })).status).toBe(204)
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    const section = page.getByRole('region', { name: 'Two-factor sign-in' })
    const setupMails = smtp.mails.length
    await section.getByRole('button', { name: 'Set up' }).click()
    const secret = await section.locator('[data-secret]').getAttribute('data-secret', { timeout: 10_000 })
    if (!secret) throw new Error('no secret on the page')
    await section.getByRole('img', { name: 'QR code of the two-factor key' }).waitFor()
    await shot(page, 'two-factor-setup')
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    await section.getByLabel('Code from your app').fill(totp.generate())
    // The code setup mailed, read from the mail catcher as the owner reads their mailbox.
    const codeMail = await smtp.waitFor(email, setupMails, 5_000, 'add-credential')
    const emailCode = /^ {4}([0-9]{6})\r?$/m.exec(codeMail.text)?.[1] ?? ''
    expect(emailCode).toMatch(/^[0-9]{6}$/)
    await section.getByLabel('Code from the email we just sent you').fill(emailCode)
    await section.getByRole('button', { name: 'Turn on' }).click()
    const list = section.getByRole('list', { name: 'Recovery codes' })
    await list.waitFor({ timeout: 10_000 })
    const codes = await list.locator('li').allInnerTexts()
    expect(codes).toHaveLength(10)
    await shot(page, 'two-factor-on')

    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await signIn(page, email, pass)
    await screen(page, 'Two-factor code')
    // The code of the next step: the one used to turn it on is spent for the rest of its window.
    await page.getByLabel('Code', { exact: true }).fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Verify' }).click()
    await screen(page, 'Todos')
    await shot(page, 'two-factor-signed-in')
    expect(problems.errors()).toEqual([])
    await context.close()
  })
  it('changes the email after the fresh window: the app asks for the password in place, refuses a wrong one, and completes', {
    timeout: 60_000,
  }, async () => {
    const { context, page, problems } = await open(stepUp)
    const email = `stepup-${randomUUID().slice(0, 8)}@example.com`
    const newEmail = `moved-${randomUUID().slice(0, 8)}@example.com`
    const pass = password()
    await signUpIn(page, 'Stepper', email, pass)
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    await new Promise((resolve) => setTimeout(resolve, (FRESH_AGE + 1) * 1000))

    const section = page.getByRole('region', { name: 'Email' })
    const mailsBefore = stepUpMail.mails.length
    await section.getByLabel('New email').fill(newEmail)
    await section.getByRole('button', { name: 'Send a confirmation link' }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' })
    await dialog.waitFor({ timeout: 10_000 })
    await shot(page, 'step-up-dialog')
    await dialog.getByLabel('Password').fill('not the password at all')
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    // Asked again, with the reason; nothing was sent.
    await page
      .getByRole('dialog', { name: 'Confirm it’s you' })
      .getByRole('alert')
      .filter({ hasText: /password is wrong/i })
      .waitFor({ timeout: 10_000 })
    expect(stepUpMail.mails.filter((m) => m.kind === 'change-email')).toHaveLength(0)
    await page.getByRole('dialog', { name: 'Confirm it’s you' }).getByLabel('Password').fill(pass)
    await page.getByRole('dialog', { name: 'Confirm it’s you' }).getByRole('button', { name: 'Confirm' }).click()

    // The action completed where the user was: still signed in, on the account screen.
    await section
      .getByText(/confirmation link is on its way/i)
      .first()
      .waitFor({ timeout: 10_000 })
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 5_000 })
    await screen(page, 'Account')
    const mail = await stepUpMail.waitFor(newEmail, mailsBefore, 5_000, 'change-email')
    expect(mail.to).toEqual([newEmail])
    await shot(page, 'step-up-done')
    expect(problems.errors().filter((e) => !/401|400/.test(e))).toEqual([])
    await context.close()
  })
})
