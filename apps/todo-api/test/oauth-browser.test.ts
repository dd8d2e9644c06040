/**
 * Social sign-in in Debian's headless Chromium against the built server and a real OpenID
 * Connect provider (`oidc-provider`, in process): the whole redirect dance from the sign-in
 * screen's button to the provider and back, signed in by the refresh cookie with no token in any
 * URL; the account screen's sign-in methods, a provider linked from there and unlinked; a second factor finished after the provider; and an
 * identity whose email an account already has brought back with the refusal in words. Screenshots go to test-artifacts/todo-api/oauth-*.png.
 */
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CLIENT_ID,
  CLIENT_SECRET,
  browser as nodeBrowser,
  startProvider,
  type TestProvider,
} from '../../../packages/auth/test/oidc-provider.js'
import { ARGS, ARTIFACTS, CHROMIUM, screen, signInWithPassword, skipReason, watch } from './browser-support.js'
import { type RunningServer, signup, startServer, turnOnTwoFactor, verifyByDevMail } from './support.js'

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `oauth-${name}.png`), fullPage: true })

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

describe.skipIf(skipReason !== null)('social sign-in in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  let idp: TestProvider
  let origin = ''

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    const port = await freePort()
    origin = `http://localhost:${port}`
    idp = await startProvider({ redirectUri: `${origin}/auth/oauth/idp/callback`, conformIdTokenClaims: false })
    const providers = [{ id: 'idp', name: 'Test IdP', issuer: idp.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }]
    server = await startServer({ env: { PORT: String(port), AUTH_OIDC_PROVIDERS: JSON.stringify(providers) } })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await idp?.close()
  })

  it('walks button → provider → callback, signs in by the refresh cookie, and lists the identity', {
    timeout: 120_000,
  }, async () => {
    const email = `bea-${crypto.randomUUID().slice(0, 8)}@example.com`
    idp.as(`bea-${crypto.randomUUID()}`, { email, email_verified: true, name: 'Bea' })
    const page = await browser.newPage()
    const problems = watch(page, origin)
    const visited: string[] = []
    page.on('request', (req) => {
      if (req.isNavigationRequest()) visited.push(req.url())
    })
    await page.goto(`${origin}/#/signin`)
    await screen(page, 'Sign in')
    await page.getByRole('button', { name: 'Sign in with Test IdP' }).click()
    await screen(page, 'Todos')
    await shot(page, 'signed-in')
    // Start, provider, callback, back home: and no token of anyone's in any of those URLs.
    expect(visited.some((url) => url.startsWith(`${idp.issuer}/auth`))).toBe(true)
    expect(visited.some((url) => url.startsWith(`${origin}/auth/oauth/idp/callback`))).toBe(true)
    for (const url of visited) expect(url).not.toMatch(/access_token|id_token|refresh_token|eyJ/)
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    const methods = page.getByRole('region', { name: 'Sign-in methods' })
    await methods.getByText('Test IdP').waitFor({ timeout: 10_000 })
    expect(await methods.getByText(email).count()).toBe(1)
    await shot(page, 'account')
    expect(problems.errors()).toEqual([])
    await page.close()
  })

  it('links a provider from the account screen (button → provider → back to the account), then unlinks it', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base, 'Ed')
    await verifyByDevMail(server, account.email, account.password)
    const atIdp = `ed-at-idp-${crypto.randomUUID().slice(0, 6)}@example.com`
    idp.as(`ed-${crypto.randomUUID()}`, { email: atIdp, email_verified: true })
    const page = await browser.newPage()
    const problems = watch(page, origin)
    const visited: string[] = []
    page.on('request', (req) => {
      if (req.isNavigationRequest()) visited.push(req.url())
    })
    await signInWithPassword(page, origin, account)
    await page.getByRole('link', { name: 'Account' }).click()
    await screen(page, 'Account')
    const methods = page.getByRole('region', { name: 'Sign-in methods' })
    await methods.getByRole('button', { name: 'Link Test IdP' }).click()
    // Out to the provider and back to the account screen, the identity listed and announced.
    await page.getByText('Test IdP is linked').waitFor({ timeout: 20_000 })
    await screen(page, 'Account')
    await methods.getByText(atIdp).waitFor({ timeout: 10_000 })
    expect(visited.some((url) => url.startsWith(`${idp.issuer}/auth`))).toBe(true)
    for (const url of visited) expect(url).not.toMatch(/access_token|id_token|refresh_token|eyJ/)
    expect(page.url()).not.toMatch(/linked=/)
    await shot(page, 'linked')

    await methods.getByRole('button', { name: 'Unlink Test IdP' }).click()
    await page.getByText('Test IdP is unlinked').waitFor({ timeout: 10_000 })
    await methods.getByRole('button', { name: 'Link Test IdP' }).waitFor({ timeout: 10_000 })
    // Gone from the list (which the section reloads after the unlink), and stays gone.
    await methods.getByText(atIdp).waitFor({ state: 'detached', timeout: 10_000 })
    await page.waitForTimeout(500)
    expect(await methods.getByText(atIdp).count()).toBe(0)
    expect(problems.errors()).toEqual([])
    await page.close()
  })

  it('an identity whose email an account has comes back with “sign in with your password, then link”', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base, 'Cy')
    idp.as(`cy-${crypto.randomUUID()}`, { email: account.email, email_verified: true })
    const page = await browser.newPage()
    const problems = watch(page, origin)
    await page.goto(`${origin}/#/signin`)
    await screen(page, 'Sign in')
    await page.getByRole('button', { name: 'Sign in with Test IdP' }).click()
    await page.getByText(/already exists\. Sign in with your password/).waitFor({ timeout: 20_000 })
    await screen(page, 'Sign in')
    expect(page.url()).not.toMatch(/error=/)
    await shot(page, 'account-exists')
    expect(problems.errors()).toEqual([])
    await page.close()
  })

  it('a provider sign-in to an account with two-factor sign-in ends on the code step, then the todos', {
    timeout: 120_000,
  }, async () => {
    const account = await signup(server.base, 'Di')
    await verifyByDevMail(server, account.email, account.password)
    const { totp } = await turnOnTwoFactor(server, account)
    // Linked from the fresh session, walked by a browser of Node's that keeps the flow cookie.
    const sub = `di-${crypto.randomUUID()}`
    idp.as(sub, { email: `di-at-idp-${crypto.randomUUID().slice(0, 6)}@example.com`, email_verified: true })
    const link = await fetch(`${server.base}/auth/oauth/idp/link`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.token}`, 'Content-Type': 'application/json', Origin: origin },
      body: '{}',
    })
    expect(link.status).toBe(200)
    const walker = nodeBrowser({ request: (path, init) => fetch(`${origin}${path}`, { ...init, redirect: 'manual' }) }, origin)
    const flow = link.headers.getSetCookie().find((line) => line.startsWith('oauth_flow=')) ?? ''
    walker.cookies.set('oauth_flow', (flow.split(';')[0] ?? '').slice('oauth_flow='.length))
    expect((await walker.walk(((await link.json()) as { url: string }).url)).location).toBe('/?linked=idp')

    const page = await browser.newPage()
    const problems = watch(page, origin)
    await page.goto(`${origin}/#/signin`)
    await screen(page, 'Sign in')
    await page.getByRole('button', { name: 'Sign in with Test IdP' }).click()
    await screen(page, 'Two-factor code')
    expect(page.url()).not.toMatch(/second_factor/)
    await shot(page, 'second-factor')
    await page.getByLabel('Code', { exact: true }).fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Verify' }).click()
    await screen(page, 'Todos')
    expect(problems.errors()).toEqual([])
    await page.close()
  })
})
