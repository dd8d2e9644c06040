/**
 * Each example's `pnpm … start`, stopped by Ctrl-C as a terminal sends it (SIGINT to the whole
 * process group): the server stops, the status is 0, and pnpm prints no
 * ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL. A shell or an npm wrapper between pnpm and the runtime
 * would die of the signal first, which is what pnpm reports.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const unbuilt = existsSync(join(ROOT, 'packages', 'auth', 'dist', 'index.js'))
  ? null
  : 'packages/auth/dist is not built (pnpm --filter @latchkey/auth build)'
if (unbuilt) console.warn(`the examples' start scripts skipped: ${unbuilt}`)
const binaries: Record<string, string> = {
  bun: join(ROOT, 'examples', 'bun', 'node_modules', 'bun', 'bin', 'bun.exe'),
  deno: join(ROOT, 'examples', 'deno', 'node_modules', 'deno', 'deno'),
}

describe.concurrent.each(['node', 'bun', 'deno', 'workers'])('pnpm --filter @latchkey/example-%s start', (runtime) => {
  const missing = unbuilt ?? (binaries[runtime] && !existsSync(binaries[runtime]) ? `${binaries[runtime]} not found` : null)
  it.skipIf(missing !== null)('stops on Ctrl-C with status 0 and no pnpm error', { timeout: 60_000 }, async () => {
    const scratch = mkdtempSync(join(tmpdir(), `latchkey-${runtime}-start-`))
    const child = spawn('pnpm', ['--filter', `@latchkey/example-${runtime}`, 'start'], {
      cwd: ROOT,
      detached: true, // its own process group, as a terminal's foreground job
      env: {
        ...process.env,
        AUTH_SECRET: 'an-example-secret-that-is-long-enough-0123456789',
        PORT: '0',
        DATABASE_PATH: join(scratch, 'auth.db'),
        D1_PERSIST: scratch,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    for (const stream of [child.stdout, child.stderr])
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk
      })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const port = async () => {
      for (let i = 0; i < 400; i++) {
        const found = /listening on http:\/\/localhost:(\d+)/.exec(output)?.[1]
        if (found) return found
        if (child.exitCode !== null) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`did not start:\n${output}`)
    }
    try {
      const listening = await port()
      expect((await fetch(`http://127.0.0.1:${listening}/auth/me`)).status).toBe(401)
      process.kill(-(child.pid as number), 'SIGINT')
      expect(await exited, output).toBe(0)
      expect(output).not.toMatch(/ERR_PNPM|SIGINT/)
      // Nothing answers on the port any more (workerd too).
      await expect(fetch(`http://127.0.0.1:${listening}/auth/me`)).rejects.toThrow()
    } finally {
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // The group has gone already.
      }
    }
  })
})
