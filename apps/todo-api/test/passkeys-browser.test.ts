/**
 * Passkeys in Debian's headless Chromium (playwright-core) with Chromium's virtual authenticator
 * (CDP `WebAuthn.addVirtualAuthenticator`: CTAP2, internal transport, resident keys, user
 * verification), against the built server on http://localhost (a secure context; rpId
 * `localhost`): a passkey added from the account screen with the mailed code, then sign-out and
 * "Sign in with a passkey"; and a two-factor account finishing its challenge with the passkey.
 * Screenshots go to test-artifacts/todo-api/passkeys-*.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, ARTIFACTS, CHROMIUM, screen, skipReason, watch } from './browser-support.js'
import {
  type Account,
  devMail,
  devMailCount,
  type RunningServer,
  request,
  signup,
  startServer,
  turnOnTwoFactor,
  verifyByDevMail,
} from './support.js'

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `passkeys-${name}.png`), fullPage: true })

describe.skipIf(skipReason !== null)('passkeys in headless Chromium with a virtual authenticator', () => {
  let browser: Browser
  let server: RunningServer

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    server = await startServer()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  /**
   * A page whose browser has one platform authenticator that verifies the user (like a laptop's
   * fingerprint reader); with `refuseVerification`, one whose check fails every time (the person
   * turned the fingerprint away, or cancelled), which WebAuthn reports as `NotAllowedError`.
   */
  const withAuthenticator = async (context: BrowserContext, { refuseVerification = false } = {}) => {
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: !refuseVerification,
        automaticPresenceSimulation: true,
      },
    })
    const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
    /** Puts another authenticator's passkey (with its private key) on this one. */
    const holds = (credential: Awaited<ReturnType<typeof credentials>>[number]) =>
      cdp.send('WebAuthn.addCredential', { authenticatorId, credential })
    return { page, credentials, holds }
  }

  /** What a person would read as an error: the alert lines with text, and any word of a network failure. */
  const redText = async (page: Page) => [
    ...(await page.locator('[role="alert"]').allInnerTexts()).map((text) => text.trim()).filter((text) => text !== ''),
    ...(await page.getByText(/could not be reached/i).allInnerTexts()),
  ]

  /** Presses a passkey button and waits for its ceremony to end (the button is disabled while it runs). */
  const pressAndWait = async (page: Page, name: string) => {
    const button = page.getByRole('button', { name })
    await button.click()
    await expect.poll(() => button.isEnabled(), { timeout: 15_000 }).toBe(true)
  }

  const signInWithPassword = async (page: Page, account: Account) => {
    await page.goto(`http://localhost:${server.port}/#/signin`)
    await screen(page, 'Sign in')
    await page.getByLabel('Email', { exact: true }).fill(account.email)
    await page.getByLabel('Password', { exact: true }).fill(account.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }

  /** Adds a passkey named `name` on the account screen, with the code the server mails. */
  const addPasskey = async (page: Page, account: Account, name: string) => {
    await page.goto(`http://localhost:${server.port}/#/account`)
    await screen(page, 'Account')
    const region = page.getByRole('region', { name: 'Passkeys' })
    await region.getByText('No passkey yet').waitFor()
    await shot(page, 'account-empty')
    const before = devMailCount(server, 'add-credential code', account.email)
    await region.getByRole('button', { name: 'Add a passkey' }).click()
    const code = await devMail(server, 'add-credential code', account.email, before)
    await region.getByLabel('Code from the email').fill(code)
    await region.getByLabel('Name').fill(name)
    await region.getByRole('button', { name: 'Create the passkey' }).click()
    await region.getByRole('list', { name: 'Passkeys' }).getByText(name).waitFor({ timeout: 15_000 })
    await shot(page, 'account-added')
  }

  /**
   * A browser without conditional mediation (no passkeys in autofill): Chromium's virtual
   * authenticator answers a conditional request at once, as if the user had picked the passkey
   * from the email field's autofill, so the button and the two-factor step are tested without it.
   */
  const withoutAutofill = (page: Page) =>
    page.addInitScript(() => {
      const browser = globalThis as unknown as {
        PublicKeyCredential: { isConditionalMediationAvailable: () => Promise<boolean> }
      }
      browser.PublicKeyCredential.isConditionalMediationAvailable = async () => false
    })

  it('adds a passkey on the account screen, signs out, and signs in with it: by autofill, and by the button', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base)
    await verifyByDevMail(server, account.email, account.password)
    const context = await browser.newContext()
    const { page, credentials } = await withAuthenticator(context)
    const problems = watch(page, `http://localhost:${server.port}`)
    await signInWithPassword(page, account)
    await screen(page, 'Todos')
    await addPasskey(page, account, 'Laptop')
    // The authenticator holds one discoverable credential for rpId localhost.
    const [credential, ...more] = await credentials()
    expect(more).toEqual([])
    expect(credential).toMatchObject({ rpId: 'localhost', isResidentCredential: true })
    // The server lists it under the name given.
    const listed = await request(server.base, 'GET', '/auth/passkeys', { token: account.token })
    expect(listed.body).toEqual([expect.objectContaining({ name: 'Laptop', lastUsedAt: null })])

    // Signed out, the sign-in screen's autofill request (conditional mediation on the email
    // field, autocomplete="username webauthn") is answered by the passkey: signed in again.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await screen(page, 'Todos')
    await page.getByText(account.email).waitFor()
    const after = await request(server.base, 'GET', '/auth/passkeys', { token: account.token })
    expect((after.body as { lastUsedAt: string | null }[])[0]?.lastUsedAt).not.toBeNull()

    // In a browser without passkeys in autofill, the button does it.
    // The page loads again without autofill first: signing out of the page that has it would show
    // the sign-in screen only until the autofill request signs in again.
    await withoutAutofill(page)
    await page.reload()
    await screen(page, 'Todos')
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    // Signed out (the logout answered, the flag cleared) before the reload: a reload while the
    // logout is in flight would refresh with the cookie it ends (a 401 in the console).
    await screen(page, 'Sign in')
    await page.reload()
    await screen(page, 'Sign in')
    expect(await page.getByLabel('Email', { exact: true }).getAttribute('autocomplete')).toBe('username webauthn')
    await shot(page, 'sign-in')
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await screen(page, 'Todos')
    await page.getByText(account.email).waitFor()
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('a two-factor account finishes its challenge with the passkey ("Use a passkey instead")', { timeout: 90_000 }, async () => {
    const account = await signup(server.base, 'Grace')
    await verifyByDevMail(server, account.email, account.password)
    const context = await browser.newContext()
    const { page } = await withAuthenticator(context)
    await withoutAutofill(page)
    const problems = watch(page, `http://localhost:${server.port}`)
    await signInWithPassword(page, account)
    await screen(page, 'Todos')
    await addPasskey(page, account, 'Laptop')
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await screen(page, 'Sign in')

    // Two-factor sign-in on, over the API (the account screen's own flow is web.test.ts's).
    await turnOnTwoFactor(server, account)

    // The password step now asks for the second one, and offers the passkey.
    await signInWithPassword(page, account)
    await screen(page, 'Two-factor code')
    await shot(page, 'two-factor')
    await page.getByRole('button', { name: 'Use a passkey instead' }).click()
    await screen(page, 'Todos')
    await page.getByText(account.email).waitFor()
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('a passkey prompt that ends without a passkey shows no error: an authenticator with none for the site', {
    timeout: 60_000,
  }, async () => {
    const context = await browser.newContext()
    const { page } = await withAuthenticator(context)
    const problems = watch(page, `http://localhost:${server.port}`)
    const asked = () =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('POST /auth/passkeys/login/options 200')).length
    const before = asked()
    await page.goto(`http://localhost:${server.port}/#/signin`)
    await screen(page, 'Sign in')
    // The autofill request of the first load, answered at once by an authenticator with nothing to offer.
    await expect.poll(asked, { timeout: 10_000 }).toBeGreaterThan(before)
    await page.waitForTimeout(1_000)
    expect(await redText(page)).toEqual([])
    await pressAndWait(page, 'Sign in with a passkey')
    expect(asked() - before).toBe(2)
    expect(await redText(page)).toEqual([])
    await shot(page, 'none-for-the-site')
    expect(problems.errors()).toEqual([])
    await context.close()
  })

  it('a passkey prompt whose check the person refuses shows no error: sign-in, the two-factor step, adding one', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base, 'Refuser')
    await verifyByDevMail(server, account.email, account.password)
    const owner = await browser.newContext()
    const laptop = await withAuthenticator(owner)
    await signInWithPassword(laptop.page, account)
    await screen(laptop.page, 'Todos')
    await addPasskey(laptop.page, account, 'Laptop')
    const [credential] = await laptop.credentials()
    if (!credential) throw new Error('no passkey on the authenticator')
    await owner.close()
    const { totp } = await turnOnTwoFactor(server, account)

    // The same passkey on a device whose user verification fails (the person cancels it).
    const context = await browser.newContext()
    const { page, holds } = await withAuthenticator(context, { refuseVerification: true })
    await holds(credential)
    const problems = watch(page, `http://localhost:${server.port}`)
    await page.goto(`http://localhost:${server.port}/#/signin`)
    await screen(page, 'Sign in')
    await page.waitForTimeout(1_000)
    expect(await redText(page), 'autofill').toEqual([])
    await pressAndWait(page, 'Sign in with a passkey')
    expect(await redText(page), 'button').toEqual([])

    await page.getByLabel('Email', { exact: true }).fill(account.email)
    await page.getByLabel('Password', { exact: true }).fill(account.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await screen(page, 'Two-factor code')
    await pressAndWait(page, 'Use a passkey instead')
    expect(await redText(page), 'second step').toEqual([])
    await page.getByLabel('Code', { exact: true }).fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Verify' }).click()
    await screen(page, 'Todos')

    // Adding a passkey, refused at the device: a plain note, the form stays for another try.
    await page.goto(`http://localhost:${server.port}/#/account`)
    await screen(page, 'Account')
    const region = page.getByRole('region', { name: 'Passkeys' })
    const before = devMailCount(server, 'add-credential code', account.email)
    await region.getByRole('button', { name: 'Add a passkey' }).click()
    await region.getByLabel('Code from the email').fill(await devMail(server, 'add-credential code', account.email, before))
    await region.getByRole('button', { name: 'Create the passkey' }).click()
    await region.getByText('No passkey was created.').waitFor({ timeout: 15_000 })
    expect(await redText(page), 'adding').toEqual([])
    await region.getByRole('button', { name: 'Create the passkey' }).waitFor()
    await shot(page, 'refused-adding')
    expect(problems.errors()).toEqual([])
    await context.close()
  })
})
