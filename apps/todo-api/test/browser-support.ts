/**
 * What the browser tests share: Debian's headless Chromium (never a downloaded browser), where
 * screenshots go (test-artifacts/todo-api/, git-ignored), and a watch on a page's console errors.
 * The tests skip, saying why, when /usr/bin/chromium is missing (`.ci/run` installs it when it can).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ConsoleMessage, Page } from 'playwright-core'
import { REPO_ROOT } from './support.js'

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
