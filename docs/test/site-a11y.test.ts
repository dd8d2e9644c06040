/**
 * The built documentation site in Debian's headless Chromium (never a downloaded browser), served
 * from docs/.vitepress/dist as a static host would: every page passes axe-core (WCAG 2.x A and AA,
 * and axe's best practices) in the light theme, a few in the dark one, and the search dialog, empty
 * and with results (its roles are corrected by the theme's search-dialog.ts). Needs
 * `pnpm docs:build` first, as site.test.ts does. Screenshots go to test-artifacts/docs/.
 */
import { mkdirSync, readdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join, relative } from 'node:path'
import { type ServerType, serve } from '@hono/node-server'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARGS, audit, CHROMIUM, skipReason } from '../../apps/todo-api/test/browser-support.js'
import { DOCS, ROOT } from '../.vitepress/pages.js'

const DIST = join(DOCS, '.vitepress', 'dist')
const ARTIFACTS = join(ROOT, 'test-artifacts', 'docs')

/** Every built page, as its path on the site. */
const pages = (dir = DIST): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : pages(path)
    return entry.name.endsWith('.html') && entry.name !== '404.html' ? [`/${relative(DIST, path)}`] : []
  })

describe.skipIf(skipReason !== null)('the built docs site in headless Chromium', () => {
  let browser: Browser
  let server: ServerType
  let origin = ''

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    const app = new Hono().use('*', serveStatic({ root: relative(process.cwd(), DIST) }))
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        origin = `http://127.0.0.1:${info.port}`
        resolve()
      })
    })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('every page passes axe in the light theme', { timeout: 600_000 }, async () => {
    const all = pages()
    expect(all.length).toBeGreaterThan(30)
    const context = await browser.newContext({ colorScheme: 'light' })
    const page = await context.newPage()
    const found: Record<string, string[]> = {}
    for (const path of all) {
      const response = await page.goto(`${origin}${path}`)
      expect(response?.status(), path).toBe(200)
      await page.locator('.VPContent').waitFor()
      const violations = await audit(page)
      if (violations.length > 0)
        found[path] = violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes: ${v.nodes.slice(0, 3).join(', ')})`)
    }
    expect(found).toEqual({})
    await context.close()
  })

  it.each(['/docs/getting-started.html', '/docs/reference/endpoints.html', '/index.html'])(
    '%s passes axe in the dark theme',
    { timeout: 120_000 },
    async (path) => {
      const context = await browser.newContext({ colorScheme: 'dark' })
      const page = await context.newPage()
      await page.goto(`${origin}${path}`)
      await page.locator('.VPContent').waitFor()
      expect(await page.evaluate('document.documentElement.classList.contains("dark")')).toBe(true)
      expect(await audit(page)).toEqual([])
      const name = path.replace(/\W+/g, '-').replace(/^-|-html$/g, '')
      await page.screenshot({ path: join(ARTIFACTS, `${name}-dark.png`) })
      await context.close()
    },
  )

  it('the search dialog passes axe, empty and with results, and still opens a result from the keyboard', {
    timeout: 120_000,
  }, async () => {
    const context = await browser.newContext({ colorScheme: 'light' })
    const page = await context.newPage()
    await page.goto(`${origin}/docs/getting-started.html`)
    await page.locator('.VPContent').waitFor()
    await page.getByRole('button', { name: /^Search/ }).click()
    const dialog = page.getByRole('dialog', { name: 'Search' })
    await dialog.waitFor()
    expect(await audit(page)).toEqual([])
    await page.keyboard.type('passkey')
    await dialog.getByRole('link').first().waitFor()
    expect(await audit(page)).toEqual([])
    await page.screenshot({ path: join(ARTIFACTS, 'search-dialog.png') })
    // The arrow keys and Enter work as VitePress made them: the second result opens.
    const second = await dialog.getByRole('link').nth(1).getAttribute('href')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await page.waitForURL((url) => `${url.pathname}${url.hash}`.endsWith(second ?? '-'))
    await context.close()
  })
})
