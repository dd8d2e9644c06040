/**
 * The operators' screen in Debian's headless Chromium (docs/guide/operators.md): the link shows
 * for an `admin` only; the operator finds an account, opens it (sessions, factors, state), and
 * disables it after confirming with a reason, then enables it again. Each state passes axe-core
 * with no violations; a screenshot of each goes to test-artifacts/todo-api/operators-*.png.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { browserSuite, screen, skipReason, watch } from './browser-support.js'
import { type Account, APP_DIR, request, run, signup } from './support.js'

describe.skipIf(skipReason !== null)('the operators’ screen in headless Chromium', () => {
  const suite = browserSuite('operators')
  const { origin, check } = suite

  const signIn = async (account: Account) => {
    const context = await suite.browser.newContext()
    const page = await context.newPage()
    const problems = watch(page, origin())
    await page.goto(origin())
    await screen(page, 'Sign in')
    await page.getByLabel('Email').fill(account.email)
    await page.getByLabel('Password').fill(account.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await screen(page, 'Todos')
    return { context, page, problems }
  }

  it('shows the link to an admin only, finds an account, disables and enables it after a confirmation', {
    timeout: 120_000,
  }, async () => {
    const op = await signup(suite.server.base, 'Operator')
    const ada = await signup(suite.server.base, 'Ada')
    const granted = await run(process.execPath, [join(APP_DIR, 'dist', 'cli.js'), 'set-role', op.email, 'admin'], {
      env: { DATABASE_URL: `file:${suite.server.dbPath}` },
    })
    expect(granted.code, granted.stderr).toBe(0)

    // A user without the role never sees the link.
    const plain = await signIn(ada)
    await plain.page.getByRole('link', { name: 'Account' }).waitFor()
    await plain.page.waitForTimeout(500)
    expect(await plain.page.getByRole('link', { name: 'Operators' }).isVisible()).toBe(false)
    await plain.context.close()

    const { context, page, problems } = await signIn(op)
    await page.getByRole('link', { name: 'Operators' }).click()
    await screen(page, 'Operators')
    await page.getByText(/accounts? found/).waitFor()
    await check(page, 'list')

    await page.getByLabel('Email or name starts with').fill(ada.email.slice(0, 6).toUpperCase())
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByText('1 account found.').waitFor()
    await page.getByRole('button', { name: new RegExp(ada.email) }).click()
    const panel = page.getByRole('region', { name: 'Ada' })
    await panel.getByText('Sessions').waitFor()
    await check(page, 'user')

    await panel.getByRole('button', { name: 'Disable the account' }).click()
    const confirm = page.getByRole('form', { name: 'Confirm: Disable the account' })
    await confirm.getByText('Every session ends now').waitFor()
    await check(page, 'confirm')
    await confirm.getByLabel('Reason (kept in the audit log)').fill('spam reports')
    await confirm.getByRole('button', { name: 'Yes, disable the account' }).click()
    await page
      .getByText(/is disabled\./)
      .first()
      .waitFor()
    await panel.getByText(/^Disabled since/).waitFor()
    await check(page, 'disabled')
    expect((await request(suite.server.base, 'GET', '/auth/me', { token: ada.token })).status).toBe(401)
    const refused = await request(suite.server.base, 'POST', '/auth/login', {
      body: { email: ada.email, password: ada.password },
    })
    expect(refused.status).toBe(403)

    await panel.getByRole('button', { name: 'Enable the account' }).click()
    await page.getByRole('button', { name: 'Yes, enable the account' }).click()
    await panel.getByText('Active').waitFor()
    const back = await request(suite.server.base, 'POST', '/auth/login', { body: { email: ada.email, password: ada.password } })
    expect(back.status).toBe(200)
    expect(problems.errors()).toEqual([])
    await context.close()
  })
})
