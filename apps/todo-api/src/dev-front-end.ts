/**
 * `pnpm dev` only: Vite's development server inside the app's HTTP server, so the front end at
 * `/` reloads on every change of web/. Vite answers its own paths (the sources, its client, its
 * WebSocket on the same port); everything else goes to the app. Its CSP is relaxed for Vite's
 * client only (styles injected at run time, the reload WebSocket); the build has the strict one.
 */
import { readFile } from 'node:fs/promises'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { createServer } from 'vite'
import { appDir } from './config.js'
import type { FrontEnd } from './routes/front-end.js'
import { viteSettings } from './vite-settings.js'

const VITE_PATHS = /^\/(?:@vite\/|@id\/|@fs\/|src\/|node_modules\/)/

const DEV_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self' ws: wss:",
  "img-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const devFrontEnd = async (server: Server) => {
  const vite = await createServer({
    ...viteSettings(appDir),
    appType: 'custom',
    server: { middlewareMode: true, hmr: { server } },
  })
  const frontEnd: FrontEnd = {
    index: async () => vite.transformIndexHtml('/', await readFile(join(appDir, 'web', 'index.html'), 'utf8')),
    csp: DEV_CSP,
  }
  return {
    frontEnd,
    /** Answers the request when it is Vite's; `false` when it is the app's. */
    handle(req: IncomingMessage, res: ServerResponse): boolean {
      if (!VITE_PATHS.test(req.url ?? '')) return false
      vite.middlewares(req, res, () => {
        res.statusCode = 404
        res.end()
      })
      return true
    },
    close: () => vite.close(),
  }
}
