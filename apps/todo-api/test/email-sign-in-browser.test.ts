/**
 * Sign-in by email in Debian's headless Chromium (playwright-core, never a downloaded browser),
 * against the built server and a real SMTP server on loopback (docs/reference/email-sign-in.md):
 * "Email me a sign-in link" on the front end, then the code from the mail typed into the same
 * screen; and the link from the mail opened in the same browser, whose button signs in and opens
 * the todo list. Screenshots go to test-artifacts/todo-api/email-sign-in-*.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, ARTIFACTS, CHROMIUM, screen, skipReason, watch } from './browser-support.js'
import { type RunningServer, signup, startServerWithMail, type startSmtp } from './support.js'

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `email-sign-in-${name}.png`), fullPage: true })

describe.skipIf(skipReason !== null)('sign-in by email in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    ;({ server, smtp } = await startServerWithMail())
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await smtp?.close()
  })

  /** Asks for a mail on the front end's sign-in screen; answers the mail's link and code. */
  const askForMail = async (page: Page, email: string) => {
    const before = smtp.mails.length
    await page.goto(`http://localhost:${server.port}/#/signin`)
    await screen(page, 'Sign in')
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await screen(page, 'Sign in by email')
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await screen(page, 'Enter the code from the mail')
    const mail = await smtp.waitFor(email, before, 10_000, 'sign-in')
    const link = /https?:\/\/\S+\/sign-in\?token=[\w-]+/.exec(mail.text)?.[0]
    const code = /code in the browser where you asked: ([0-9]{6})/.exec(mail.text)?.[1]
    if (!link || !code) throw new Error(`a sign-in mail without its link or code:\n${mail.text}`)
    return { link, code }
  }

  it('signs in with the code from the mail, typed on the same screen', { timeout: 60_000 }, async () => {
    const account = await signup(server.base)
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems = watch(page, `http://localhost:${server.port}`)
    const { code } = await askForMail(page, account.email)
    await shot(page, 'code')
    await page.getByLabel('Code from the mail').fill(code)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await screen(page, 'Todos')
    await shot(page, 'code-signed-in')
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('signs in with the link from the mail, opened in the same browser', { timeout: 60_000 }, async () => {
    const account = await signup(server.base)
    const context = await browser.newContext()
    const page = await context.newPage()
    const origin = `http://localhost:${server.port}`
    const problems = watch(page, origin)
    const { link } = await askForMail(page, account.email)
    const token = new URL(link).searchParams.get('token') ?? ''
    await page.goto(link)
    // The page took the token out of the address bar, and opening it spent nothing.
    expect(page.url()).not.toContain(token)
    await shot(page, 'link-opened')
    await page.click('#confirm')
    await screen(page, 'Todos')
    await shot(page, 'link-signed-in')
    expect(problems.errors()).toEqual([])
    await context.close()
  })
})
