/**
 * GET /docs: the interactive API reference (Swagger UI), served entirely by this server from
 * the installed `swagger-ui-dist` package: no CDN, so the page works offline and loads nothing
 * from elsewhere. A strict same-origin CSP holds it to that.
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
</head>
<body>
<noscript>The OpenAPI document is at <a href="${openApiUrl}">${openApiUrl}</a>.</noscript>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`

const init = (openApiUrl: string) =>
  `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(openApiUrl)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: 'none' })\n`

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

export const docsRoutes = (app: OpenAPIHono, openApiUrl: string, title: string): void => {
  const assets = new Map<string, Promise<string>>()
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', CSP)
    return c.html(page(title, openApiUrl))
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
