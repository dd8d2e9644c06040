/** Builds `dist/` when it is missing or older than `src/`, so the tests never drive a stale server. */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { APP_DIR, MAIN } from './support.js'

const newestSource = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newestSource(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
    ),
  )

export default function setup() {
  if (existsSync(MAIN) && statSync(MAIN).mtimeMs >= newestSource(join(APP_DIR, 'src'))) return
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: APP_DIR, stdio: 'inherit' })
}
