/**
 * Accounts with two-factor sign-in in Debian's headless Chromium (playwright-core, never a
 * downloaded browser), against the built server (dev mail on its stdout): deleting the account on
 * a stale session asks for the code once (docs/reference/lifecycle.md#deleting-the-account), and
 * the sign-in link's page puts the code's hint with its field, above the button. Screenshots go to
 * test-artifacts/todo-api/two-factor-*.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, ARTIFACTS, audit, CHROMIUM, expectDeleted, screen, skipReason, watch } from './browser-support.js'
import { devMail, type RunningServer, request, signup, startServer, turnOnTwoFactor, verifyByDevMail } from './support.js'

/** Seconds a session stays fresh (`AUTH_FRESH_AGE`): the tests wait past it for a stale session. */
const FRESH_AGE = 2

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `two-factor-${name}.png`), fullPage: true })

describe.skipIf(skipReason !== null)('two-factor accounts in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  const origin = () => `http://localhost:${server.port}`

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    server = await startServer({ env: { AUTH_FRESH_AGE: String(FRESH_AGE) } })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('deletes the account on a stale session with one code: the dialog asks for the password only', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base, 'Leaver')
    await verifyByDevMail(server, account.email, account.password)
    const { totp, recoveryCodes } = await turnOnTwoFactor(server, account)
    const context = await browser.newContext()
    const page = await context.newPage()
    // An authenticator with no passkey for the site: "Use a passkey" in the dialog ends without one.
    const cdp = await context.newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    })
    const problems = watch(page, origin())
    await page.goto(`${origin()}/#/signin`)
    await screen(page, 'Sign in')
    await page.getByLabel('Email', { exact: true }).fill(account.email)
    await page.getByLabel('Password', { exact: true }).fill(account.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await screen(page, 'Two-factor code')
    // A recovery code: the app's codes are kept for the one the deletion takes.
    await page.getByLabel('Code', { exact: true }).fill(recoveryCodes[0] ?? '')
    await page.getByRole('button', { name: 'Verify' }).click()
    await screen(page, 'Todos')
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    await page.waitForTimeout((FRESH_AGE + 1) * 1000)

    // The one code the person types (the step after the one that turned two-factor on).
    const section = page.getByRole('region', { name: 'Delete the account' })
    await section.getByLabel('Code or recovery code').fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await section.getByRole('button', { name: 'Delete my account' }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' })
    await dialog.waitFor({ timeout: 10_000 })
    expect(await dialog.getByLabel(/code/i).count()).toBe(0)
    expect(await dialog.getByLabel('Password').count()).toBe(1)
    // "Use a passkey" and "Cancel" stand apart.
    const passkey = await dialog.getByRole('button', { name: 'Use a passkey' }).boundingBox()
    const cancel = await dialog.getByRole('button', { name: 'Cancel' }).boundingBox()
    if (!passkey || !cancel) throw new Error('the dialog lacks its passkey or cancel button')
    const apart =
      cancel.y >= passkey.y + passkey.height ? cancel.y - (passkey.y + passkey.height) : cancel.x - (passkey.x + passkey.width)
    expect(apart).toBeGreaterThanOrEqual(12)
    await shot(page, 'delete-dialog')
    expect(await audit(page)).toEqual([])

    // No passkey on this device: nothing red, the password is still the way on.
    const usePasskey = dialog.getByRole('button', { name: 'Use a passkey' })
    await usePasskey.click()
    await expect.poll(() => usePasskey.isEnabled(), { timeout: 15_000 }).toBe(true)
    expect((await dialog.getByRole('alert').allInnerTexts()).join('').trim()).toBe('')

    await dialog.getByLabel('Password').fill('not the password at all')
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await dialog
      .getByRole('alert')
      .filter({ hasText: /password is wrong/i })
      .waitFor({ timeout: 10_000 })
    await dialog.getByLabel('Password').fill(account.password)
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await expectDeleted(page, server.base, account)
    // The refused password (400) and the stale session's 401 are the console's only errors.
    expect(problems.errors().filter((line) => !/status of 40[01]/.test(line))).toEqual([])
    await context.close()
  })

  it('the sign-in link page asks for the code with its hint above the Verify button', { timeout: 60_000 }, async () => {
    const account = await signup(server.base, 'Linked')
    await verifyByDevMail(server, account.email, account.password)
    const { totp } = await turnOnTwoFactor(server, account)
    const started = await request(server.base, 'POST', '/auth/email-sign-in', { body: { email: account.email } })
    expect(started.status).toBeLessThan(300)
    const link = (await devMail(server, 'sign-in link', account.email)).split(' ')[0] ?? ''
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems = watch(page, origin())
    await page.goto(link.replace(/^http:\/\/[^/]+/, origin()))
    await page.click('#confirm')
    const field = page.getByLabel('Two-factor code')
    await field.waitFor({ timeout: 10_000 })
    const hint = page.getByText('Enter the code from your authenticator app, or a recovery code.')
    const button = page.getByRole('button', { name: 'Verify' })
    await button.waitFor()
    const [fieldBox, hintBox, buttonBox] = await Promise.all([field.boundingBox(), hint.boundingBox(), button.boundingBox()])
    if (!fieldBox || !hintBox || !buttonBox) throw new Error('the code step lacks its field, hint or button')
    expect(hintBox.y).toBeGreaterThanOrEqual(fieldBox.y + fieldBox.height)
    expect(hintBox.y + hintBox.height).toBeLessThanOrEqual(buttonBox.y)
    expect(await field.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'))
    await shot(page, 'sign-in-link-code')
    expect(await audit(page)).toEqual([])
    await field.fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await button.click()
    await screen(page, 'Todos')
    expect(problems.errors()).toEqual([])
    await context.close()
  })
})
