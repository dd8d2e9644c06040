/**
 * How Vite builds and serves the front end (web/): built into dist/web, which the server serves at
 * `/`. The client library is taken from its sources (the `@latchkey/source` condition), so the
 * front end builds and reloads without building @latchkey/client first. Shared by vite.config.ts
 * (`vite build`) and the development server (dev-front-end.ts), which passes it inline: loading a
 * config file would make `node --watch` restart on Vite's temporary copy of it.
 */
import { join } from 'node:path'
import { defaultClientConditions, type InlineConfig } from 'vite'

export const viteSettings = (appDir: string): InlineConfig => ({
  configFile: false,
  root: join(appDir, 'web'),
  resolve: { conditions: ['@latchkey/source', ...defaultClientConditions] },
  logLevel: 'warn',
  build: {
    outDir: join(appDir, 'dist', 'web'),
    emptyOutDir: true,
    // No inline scripts: the polyfill would be one, and every browser we target has modulepreload.
    modulePreload: { polyfill: false },
    // Every asset a file of its own (style-src/img-src 'self'), never inlined as a data: URL.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
})
