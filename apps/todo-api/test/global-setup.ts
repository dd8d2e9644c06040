/**
 * Builds `dist/` when it is missing or older than `src/`, and the front end (`dist/web`) when it
 * is older than `web/` or the client's sources, so the tests never drive a stale server or page.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { APP_DIR, MAIN, REPO_ROOT } from './support.js'

const newestSource = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newestSource(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
    ),
  )

const builtAt = (file: string) => (existsSync(file) ? statSync(file).mtimeMs : 0)

export default function setup() {
  const require = createRequire(import.meta.url)
  if (builtAt(MAIN) < newestSource(join(APP_DIR, 'src'))) {
    const tsc = require.resolve('typescript/bin/tsc')
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: APP_DIR, stdio: 'inherit' })
  }
  const webSources = Math.max(
    newestSource(join(APP_DIR, 'web')),
    newestSource(join(REPO_ROOT, 'packages', 'client', 'src')),
    statSync(join(APP_DIR, 'src', 'vite-settings.ts')).mtimeMs,
  )
  if (builtAt(join(APP_DIR, 'dist', 'web', 'index.html')) < webSources) {
    const vite = join(require.resolve('vite/package.json'), '..', 'bin', 'vite.js')
    execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: APP_DIR, stdio: 'inherit' })
  }
}
