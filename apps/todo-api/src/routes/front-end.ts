/**
 * The front end (web/, built by Vite into dist/web) at `/`: `index.html` is revalidated on every
 * visit (`no-cache`), the hashed files under `/assets/` are kept for a year (`immutable`: a new
 * build has new names). A strict CSP holds the page to its own scripts, styles and API: no inline
 * script or style, nothing from elsewhere.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import type { OpenAPIHono } from '@hono/zod-openapi'

export const FRONT_END_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

export interface FrontEnd {
  /** The page at `/`: the built `index.html`, or (development) Vite's transform of the source one. */
  index: () => string | Promise<string>
  /** The folder of the built, hashed assets; unset in development, where Vite serves the sources. */
  assetsDir?: string
  /** Development relaxes it for Vite's client (injected styles, its WebSocket). */
  csp?: string
}

/** The built front end in `dir` (dist/web), or `null` when it has not been built. */
export const builtFrontEnd = (dir: string): FrontEnd | null => {
  let html: string
  try {
    html = readFileSync(join(dir, 'index.html'), 'utf8')
  } catch {
    return null
  }
  return { index: () => html, assetsDir: join(dir, 'assets') }
}

const IMMUTABLE = 'public, max-age=31536000, immutable'

export const frontEndRoutes = (app: OpenAPIHono, frontEnd: FrontEnd): void => {
  app.get('/', async (c) => {
    c.header('Content-Security-Policy', frontEnd.csp ?? FRONT_END_CSP)
    c.header('Cache-Control', 'no-cache')
    return c.html(await frontEnd.index())
  })
  const { assetsDir } = frontEnd
  if (!assetsDir) return
  app.use(
    '/assets/*',
    serveStatic({
      root: assetsDir,
      rewriteRequestPath: (path) => path.slice('/assets'.length),
      onFound: (_path, c) => {
        c.header('Cache-Control', IMMUTABLE)
        c.header('Content-Security-Policy', FRONT_END_CSP)
      },
    }),
  )
}
