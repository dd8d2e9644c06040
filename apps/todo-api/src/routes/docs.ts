/**
 * GET /docs: the interactive API reference (Swagger UI), served entirely by this server from
 * the installed `swagger-ui-dist` package: no CDN, so the page works offline and loads nothing
 * from elsewhere. A strict same-origin CSP holds it to that. axe-core finds nothing on it (the
 * browser test): the init and a small stylesheet fix what Swagger UI leaves (nested controls, an
 * unnamed select, skipped heading levels, content outside landmarks, low-contrast colours).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { OpenAPIHono } from '@hono/zod-openapi'

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

const ASSETS = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const

const page = (title: string, openApiUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/contrast.css">
</head>
<body>
<noscript>The OpenAPI document is at <a href="${openApiUrl}">${openApiUrl}</a>.</noscript>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`

/**
 * Swagger UI, and what it leaves for axe-core to find, fixed as it renders: deep links off (with
 * them every operation's path is a link nested in the operation's toggle button); the servers list
 * named by its visible title; heading levels without gaps under the title (h1): the tags (h3) at
 * 2, the sections in them (h4) at 3; the info and servers blocks as named regions beside Swagger
 * UI's own `<main>` (the operations).
 */
const init = (openApiUrl: string) => `const accessible = () => {
  document.getElementById('servers')?.setAttribute('aria-label', 'Servers')
  for (const tag of document.querySelectorAll('.opblock-tag')) tag.setAttribute('aria-level', '2')
  for (const title of document.querySelectorAll('#swagger-ui h4')) title.setAttribute('aria-level', '3')
  for (const [selector, name] of [['.information-container', 'About this API'], ['.schemes-server-container', 'Servers and authorization']]) {
    const block = document.querySelector(selector)
    block?.setAttribute('role', 'region')
    block?.setAttribute('aria-label', name)
  }
}
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(openApiUrl)}, dom_id: '#swagger-ui', deepLinking: false, validatorUrl: 'none' })
// Again whenever Swagger UI renders more (an operation or the schemas opened).
new MutationObserver(accessible).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true })
`

/**
 * Swagger UI's colours where its text falls below WCAG AA contrast (4.5:1): the method badges
 * (white on light green, blue, red…), the version badges, links, the Authorize button, header
 * examples, and the examples' numbers (an inline colour of its highlighter, hence `!important`).
 */
const CONTRAST = `.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#1e7a4f}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1a5fb4}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b42318}
.swagger-ui .opblock.opblock-patch .opblock-summary-method{background:#0f766e}
.swagger-ui .opblock.opblock-put .opblock-summary-method{background:#9a5b00}
.swagger-ui .info .title small{background:#4d5361}
.swagger-ui .info .title small.version-stamp{background:#3b6e00}
.swagger-ui .info a,.swagger-ui .info .url,.swagger-ui a.link{color:#1f5fa8}
.swagger-ui .btn.authorize{color:#1e7a4f;border-color:#1e7a4f}
.swagger-ui .btn.authorize svg{fill:#1e7a4f}
.swagger-ui .json-schema-2020-12-expand-deep-button{color:#505050}
.swagger-ui table.headers .header-example{color:#595959}
.swagger-ui .microlight [style*="rgb(211, 99, 99)"]{color:#ef9a9a!important}
`

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

export const docsRoutes = (app: OpenAPIHono, openApiUrl: string, title: string): void => {
  const assets = new Map<string, Promise<string>>()
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', CSP)
    return c.html(page(title, openApiUrl))
  })
  app.get('/docs/contrast.css', (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8')
    return c.body(CONTRAST)
  })
  app.get('/docs/init.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8')
    return c.body(init(openApiUrl))
  })
  // One plain route per asset: a pattern with alternatives would make Hono fall back from its
  // RegExpRouter to the slower TrieRouter for every route of the app (pnpm bench).
  for (const name of Object.keys(ASSETS) as (keyof typeof ASSETS)[])
    app.get(`/docs/${name}`, async (c) => {
      let body = assets.get(name)
      if (!body) {
        body = readFile(join(DIST, name), 'utf8')
        assets.set(name, body)
      }
      c.header('Content-Type', ASSETS[name])
      c.header('Cache-Control', 'public, max-age=86400')
      return c.body(await body)
    })
}
