/**
 * What the browser tests share: Debian's headless Chromium (never a downloaded browser), where
 * screenshots go (test-artifacts/todo-api/, git-ignored), and a watch on a page's console errors.
 * The tests skip, saying why, when /usr/bin/chromium is missing (`.ci/run` installs it when it can).
 * And axe-core's audit of a page, which the front end's screens, `/docs` and the docs site pass.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { type Browser, type ConsoleMessage, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { type Account, REPO_ROOT, type RunningServer, request, type StartOptions, startServer } from './support.js'

export const CHROMIUM = '/usr/bin/chromium'
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'todo-api')
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
/** Chromium's errors for a host it cannot reach at all, as opposed to one that answered badly. */
const UNREACHABLE =
  /ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED|ERR_ADDRESS_UNREACHABLE|ERR_CONNECTION_(REFUSED|TIMED_OUT)|ERR_PROXY/

export const skipReason = existsSync(CHROMIUM) ? null : `${CHROMIUM} not found (Debian: apt-get install -y chromium)`
if (skipReason) console.warn(`browser tests skipped: ${skipReason}`)

export interface PageProblems {
  /** Console errors and uncaught exceptions, as `text (url)`, except those an unreachable foreign host caused. */
  errors(): string[]
  /** Requests to other origins that failed because the host could not be reached at all. */
  unreachable: string[]
}

/** Records what goes wrong on a page. */
export const watch = (page: Page, ownOrigin: string): PageProblems => {
  const unreachable: string[] = []
  const consoleErrors: ConsoleMessage[] = []
  const uncaught: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message)
  })
  page.on('pageerror', (error) => uncaught.push(`uncaught: ${error.message}`))
  page.on('requestfailed', (req) => {
    if (new URL(req.url()).origin !== ownOrigin && UNREACHABLE.test(req.failure()?.errorText ?? '')) unreachable.push(req.url())
  })
  const causedByUnreachable = (m: ConsoleMessage) => m.location().url !== '' && unreachable.includes(m.location().url)
  return {
    unreachable,
    errors: () => [
      ...consoleErrors.filter((m) => !causedByUnreachable(m)).map((m) => `${m.text()} (${m.location().url || 'inline'})`),
      ...uncaught,
    ],
  }
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface Violation {
  id: string
  help: string
  nodes: string[]
}

/**
 * axe-core's violations on the page as it is now (WCAG 2.x A and AA, and axe's best practices):
 * axe's own script evaluated in the page over the DevTools protocol, so the page's CSP stays as served.
 */
export const audit = async (page: Page): Promise<Violation[]> => {
  await page.evaluate(AXE)
  const violations = await page.evaluate<{ id: string; help: string; nodes: { target: string[] }[] }[]>(
    'axe.run(document).then((result) => result.violations)',
  )
  return violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }))
}

/** The account is gone: the front end shows the sign-in screen saying so, and its password signs in no more. */
export const expectDeleted = async (page: Page, base: string, account: Pick<Account, 'email' | 'password'>) => {
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor({ timeout: 15_000 })
  await page.getByText('Your account is deleted.').waitFor()
  const login = await request(base, 'POST', '/auth/login', { body: { email: account.email, password: account.password } })
  if (login.status !== 401) throw new Error(`the deleted account's login answered ${login.status}`)
}

/**
 * The usual set-up of a browser test file, registered on the running `describe`: a server and a
 * headless Chromium before its tests, both stopped after; `check` takes the screenshot
 * `<prefix>-<name>.png` and expects axe-core's audit to find nothing.
 */
export const browserSuite = (prefix: string, options: StartOptions = {}) => {
  let browser: Browser | undefined
  let server: RunningServer | undefined
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    server = await startServer(options)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('browserSuite: used before its beforeAll ran')
    return value
  }
  return {
    get browser() {
      return started(browser)
    },
    get server() {
      return started(server)
    },
    origin: () => `http://localhost:${started(server).port}`,
    async check(page: Page, name: string) {
      await page.screenshot({ path: join(ARTIFACTS, `${prefix}-${name}.png`), fullPage: true })
      expect(await audit(page), name).toEqual([])
    },
  }
}

/** Waits for the screen whose heading is `title` (every screen has one `h1`). */
export const screen = (page: Page, title: string) =>
  page.getByRole('heading', { level: 1, name: title }).waitFor({ timeout: 20_000 })

/** Signs `account` in on the sign-in screen with its password and waits for the todos. */
export const signInWithPassword = async (page: Page, origin: string, account: Pick<Account, 'email' | 'password'>) => {
  await page.goto(`${origin}/#/signin`)
  await screen(page, 'Sign in')
  await page.getByLabel('Email', { exact: true }).fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await screen(page, 'Todos')
}
