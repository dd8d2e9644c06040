/**
 * The browser flows, in Debian's headless Chromium driven by playwright-core (never a downloaded
 * browser): forgot-password → the mail caught over SMTP on loopback → the link opened → the
 * /reset-password form filled and submitted → login with the new password; and /docs renders with
 * no console errors. Screenshots go to test-artifacts/todo-api/ (git-ignored).
 *
 * Skips, saying why, when /usr/bin/chromium is missing (`.ci/run` installs it when it can).
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, ARTIFACTS, CHROMIUM, skipReason, watch } from './browser-support.js'
import { type RunningServer, request, signup, startServerWithMail, type startSmtp } from './support.js'

describe.skipIf(skipReason !== null)('in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    // PUBLIC_URL stays unset: links name http://localhost:<the bound port>, where the page really is.
    ;({ server, smtp } = await startServerWithMail())
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await smtp?.close()
  })

  /** The link of the newest mail of `kind` to `to`, and its token. */
  const linkOf = async (to: string, kind: string, page: string, after: number) => {
    const mail = await smtp.waitFor(to, after, 5_000, kind)
    const link = new RegExp(`https?://\\S+/${page}\\?token=[\\w%.~-]+`).exec(mail.text)?.[0]
    if (!link) throw new Error(`no ${page} link in the mail:\n${mail.text}`)
    return { link, token: new URL(link).searchParams.get('token') ?? '' }
  }

  /**
   * Opens a mailed link, then reads `state` (the page is open, its button not pressed: the token
   * must still be unspent), types `password` when given, presses the button and waits for `done`.
   * Answers what `state` read.
   */
  const pressThrough = async <T>(
    link: string,
    token: string,
    done: string,
    shot: string,
    state: () => Promise<T>,
    password?: string,
  ) => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems = watch(page, new URL(link).origin)
    await page.goto(link)
    expect(page.url()).not.toContain(token)
    await page.screenshot({ path: join(ARTIFACTS, `${shot}-opened.png`) })
    const before = await state()
    if (password !== undefined) await page.fill('#password', password)
    await page.click('#confirm')
    await page.locator('#status', { hasText: done }).waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(ARTIFACTS, `${shot}-done.png`) })
    expect(problems.errors()).toEqual([])
    await context.close()
    return before
  }

  it('verifies an email: signup mails a link, opening it spends nothing, the button verifies', { timeout: 60_000 }, async () => {
    const mailsBefore = smtp.mails.length
    const account = await signup(server.base)
    const { link, token } = await linkOf(account.email, 'verify-email', 'verify-email', mailsBefore)
    expect(new URL(link).origin).toBe(`http://localhost:${server.port}`)
    const me = async () =>
      (await request(server.base, 'GET', '/auth/me', { token: account.token })).body as { emailVerified: boolean }
    // Not signed in here: the page asks for the password, and the holder who types it keeps it.
    const before = await pressThrough(link, token, 'Your email address is confirmed', 'verify-email', me, account.password)
    expect(before.emailVerified).toBe(false)
    expect((await me()).emailVerified).toBe(true)
    expect((await request(server.base, 'POST', '/auth/verify-email', { body: { token } })).status).toBe(400)
  })

  it('verifies an email without the password: the page says so, and the password and sessions are gone', {
    timeout: 60_000,
  }, async () => {
    const mailsBefore = smtp.mails.length
    const account = await signup(server.base)
    const { link, token } = await linkOf(account.email, 'verify-email', 'verify-email', mailsBefore)
    const me = async () => (await request(server.base, 'GET', '/auth/me', { token: account.token })).status
    expect(await pressThrough(link, token, 'password set for this account was removed', 'verify-email-settled', me)).toBe(200)
    expect(await me()).toBe(401)
    const login = await request(server.base, 'POST', '/auth/login', {
      body: { email: account.email, password: account.password },
    })
    expect(login.status).toBe(401)
  })

  it('changes an email: the request mails the new address, its page confirms, the old address is told', {
    timeout: 60_000,
  }, async () => {
    const account = await signup(server.base)
    const newEmail = `new-${account.email}`
    const mailsBefore = smtp.mails.length
    const asked = await request(server.base, 'POST', '/auth/change-email', {
      token: account.token,
      body: { currentPassword: account.password, newEmail },
    })
    expect(asked.status).toBe(202)
    const { link, token } = await linkOf(newEmail, 'change-email', 'confirm-email', mailsBefore)
    const oldLogin = async () =>
      (await request(server.base, 'POST', '/auth/login', { body: { email: account.email, password: account.password } })).status
    const before = await pressThrough(link, token, 'Your email address has been changed', 'confirm-email', oldLogin)
    // Opening the page changed nothing: the old address still signed in.
    expect(before).toBe(200)
    const notice = await smtp.waitFor(account.email, mailsBefore, 5_000, 'email-changed')
    expect(notice.text).toContain(newEmail)
    expect((await request(server.base, 'GET', '/auth/me', { token: account.token })).status).toBe(401)
    const login = await request(server.base, 'POST', '/auth/login', { body: { email: newEmail, password: account.password } })
    expect(login.status).toBe(200)
    expect((login.body as { user: { email: string; emailVerified: boolean } }).user).toMatchObject({
      email: newEmail,
      emailVerified: true,
    })
  })

  it('resets a forgotten password through the mailed link and the /reset-password form', { timeout: 60_000 }, async () => {
    const account = await signup(server.base)
    const mailsBefore = smtp.mails.length
    const forgot = await request(server.base, 'POST', '/auth/forgot-password', { body: { email: account.email } })
    expect(forgot.status).toBe(202)

    const mail = await smtp.waitFor(account.email, mailsBefore)
    const link = /https?:\/\/\S+\/reset-password\?token=[\w%.~-]+/.exec(mail.text)?.[0]
    if (!link) throw new Error(`no reset link in the mail:\n${mail.text}`)
    expect(new URL(link).origin).toBe(`http://localhost:${server.port}`)
    const token = new URL(link).searchParams.get('token') ?? ''

    const context = await browser.newContext()
    const page = await context.newPage()
    const problems = watch(page, new URL(link).origin)
    await page.goto(link)
    // The page reads the token, then takes it out of the address bar (and so out of history).
    expect(page.url()).not.toContain(token)

    const newPassword = `violet ${randomUUID().slice(0, 6)} harbour kettle`
    await page.fill('#password', newPassword)
    await page.fill('#confirm', newPassword)
    await page.screenshot({ path: join(ARTIFACTS, 'reset-password-filled.png') })
    await page.click('button[name="submit"]')
    await page.locator('#status', { hasText: 'Your password has been changed' }).waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(ARTIFACTS, 'reset-password-done.png') })
    expect(await page.locator('#form').isHidden()).toBe(true)
    expect(problems.errors()).toEqual([])
    await context.close()

    // The new password works, the old one does not, every earlier session is gone, the link is spent.
    const login = await request(server.base, 'POST', '/auth/login', { body: { email: account.email, password: newPassword } })
    expect(login.status).toBe(200)
    const old = await request(server.base, 'POST', '/auth/login', { body: { email: account.email, password: account.password } })
    expect(old.status).toBe(401)
    expect((await request(server.base, 'GET', '/auth/me', { token: account.token })).status).toBe(401)
    const again = await request(server.base, 'POST', '/auth/reset-password', { body: { token, newPassword: `${newPassword} 2` } })
    expect(again.status).toBe(400)
  })

  it('renders /docs with no console errors', { timeout: 60_000 }, async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const url = `http://localhost:${server.port}/docs`
    const problems = watch(page, new URL(url).origin)
    await page.goto(url, { waitUntil: 'load' })
    // Rendered: the document's title and an operation's summary are visible on the page.
    const visible = (text: string) => page.getByText(text).first().waitFor({ state: 'visible', timeout: 15_000 })
    const rendered = await Promise.all([visible('Latchkey todo API'), visible('Create a todo owned by the caller')])
      .then(() => true)
      .catch(() => false)
    await page.screenshot({ path: join(ARTIFACTS, 'docs.png'), fullPage: false })
    await context.close()

    // Every asset is served by the app itself: nothing may be requested from another host.
    expect(problems.unreachable, 'requests to other hosts').toEqual([])
    expect(problems.errors(), `console errors on ${url}`).toEqual([])
    expect(rendered, `${url} did not render the API reference`).toBe(true)
  })
})
