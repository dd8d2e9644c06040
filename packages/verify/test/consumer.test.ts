/**
 * The package as a stranger gets it: `pnpm pack` the built package, install the tarball with
 * plain npm into a fresh project outside the workspace (offline: jose, its one dependency, is
 * packed from the workspace's copy), import both entries from Node, and compile the README's
 * examples with a strict `tsc`. Catches missing files, wrong `exports` and leaked `workspace:`
 * ranges. Needs `dist/` (`pnpm build`, which `pnpm test` runs first).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const PKG_DIR = fileURLToPath(new URL('..', import.meta.url))
// The workspace's own copies (pnpm links them here); hono's exports hide its package.json from require.resolve.
const JOSE_DIR = realpathSync(join(PKG_DIR, 'node_modules', 'jose'))
const HONO_DIR = realpathSync(join(PKG_DIR, 'node_modules', 'hono'))
const TSC = createRequire(join(PKG_DIR, '..', 'auth', 'package.json')).resolve('typescript/bin/tsc')

/** npm must not inherit pnpm's `npm_config_*` settings. */
const npmEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_ENV'))

const unbuilt = existsSync(join(PKG_DIR, 'dist', 'index.js')) ? null : 'packages/verify/dist is not built (pnpm build)'
if (unbuilt) console.warn(`@latchkey/verify consumer test skipped: ${unbuilt}`)

const codeBlocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '')

describe.skipIf(unbuilt !== null)('the packed @latchkey/verify in a fresh npm project', () => {
  const work = mkdtempSync(join(tmpdir(), 'latchkey-verify-consumer-'))
  const app = join(work, 'app')
  let files: string[] = []

  beforeAll(async () => {
    const pack = join(work, 'pack')
    mkdirSync(pack)
    await run('pnpm', ['pack', '--pack-destination', pack], { cwd: PKG_DIR, env: npmEnv() })
    // Tarballs of the installed copies, as npm would pack them (`npm pack <dir>` may reach the registry).
    for (const [name, dir] of [
      ['jose', JOSE_DIR],
      ['hono', HONO_DIR],
    ] as const)
      await run('tar', [
        '-czf',
        join(pack, `${name}.tgz`),
        '-C',
        dir,
        '--exclude=node_modules',
        '--transform',
        's,^\\.,package,',
        '.',
      ])
    const tarballs = readdirSync(pack).map((f) => join(pack, f))
    const ours = join(pack, readdirSync(pack).find((f) => f.startsWith('latchkey-verify-')) ?? 'missing')
    files = (await run('tar', ['-tzf', ours])).stdout.split('\n').filter(Boolean)
    mkdirSync(app)
    await run('npm', ['init', '-y'], { cwd: app, env: npmEnv() })
    await run('npm', ['pkg', 'set', 'type=module'], { cwd: app, env: npmEnv() })
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], {
      cwd: app,
      env: npmEnv(),
      timeout: 120_000,
    })
  }, 180_000)

  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it('ships dist, README and LICENSE, and depends on jose alone', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/LICENSE',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/hono.js',
      ]),
    )
    expect(files.filter((f) => /\.test\.|^package\/(src|test)\//.test(f))).toEqual([])
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@latchkey/verify/package.json'), 'utf8')) as {
      dependencies: Record<string, string>
    }
    expect(Object.keys(manifest.dependencies)).toEqual(['jose'])
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:|@latchkey\/source/)
  })

  it('imports from Node: both entries, a verifier and its refusal', async () => {
    writeFileSync(
      join(app, 'check.mjs'),
      [
        "import { createVerifier, VerifyError } from '@latchkey/verify'",
        "import { requireAccessToken } from '@latchkey/verify/hono'",
        "const verifier = createVerifier({ jwksUrl: 'https://auth.example.com/.well-known/jwks.json', issuer: 'latchkey', audience: 'latchkey' })",
        "const refused = await verifier.verify('not-a-jwt').catch((err) => err)",
        'console.log(JSON.stringify({ middleware: typeof requireAccessToken(verifier), error: refused instanceof VerifyError, code: refused.code }))',
      ].join('\n'),
    )
    const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: app, env: npmEnv() })
    expect(JSON.parse(stdout)).toEqual({ middleware: 'function', error: true, code: 'malformed' })
  })

  it("compiles the README's examples under a strict tsc, and a wrong claim name does not", async () => {
    const readme = readFileSync(join(app, 'node_modules/@latchkey/verify/README.md'), 'utf8')
    const examples = codeBlocks(readme, 'ts')
    expect(examples.length).toBeGreaterThan(0)
    for (const [i, code] of examples.entries()) writeFileSync(join(app, `readme-${i}.ts`), `${code}\nexport {}\n`)
    writeFileSync(
      join(app, 'types.ts'),
      [
        "import { Hono } from 'hono'",
        "import { createVerifier } from '@latchkey/verify'",
        "import { requireAccessToken } from '@latchkey/verify/hono'",
        "const verifier = createVerifier({ jwksUrl: 'https://a.example/.well-known/jwks.json', issuer: 'latchkey', audience: 'latchkey' })",
        "new Hono().get('/', requireAccessToken(verifier), (c) => {",
        "  const sid: string = c.get('claims').sid",
        "  const amr: string[] | undefined = c.get('claims').amr",
        '  // @ts-expect-error `sub` is a string, not a number',
        "  const wrong: number = c.get('claims').sub",
        '  return c.json({ sid, amr, wrong })',
        '})',
        '// @ts-expect-error issuer is required',
        "createVerifier({ jwksUrl: 'https://a.example/jwks.json', audience: 'latchkey' })",
        '',
      ].join('\n'),
    )
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        noEmit: true,
        lib: ['ES2023', 'DOM'],
        types: [],
      },
      include: ['*.ts'],
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig))
    await run(process.execPath, [TSC, '-p', '.'], { cwd: app }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`)
    })
  }, 60_000)
})
