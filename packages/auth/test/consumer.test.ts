/**
 * Consumer test: the package as a stranger gets it. `pnpm packs` (the page's command) packs the built packages, install the
 * tarball with plain npm into a fresh project outside the workspace, compile the getting-started
 * page's "Use it in your own Hono app" example (docs/getting-started.md) with a strict `tsc`, run it, and talk to it over HTTP.
 * Catches missing files, wrong `exports`, leaked `workspace:` ranges and peers that do not dedupe.
 *
 * The install line, the example and the lines that make its `.env` and start it are read from the
 * page at test time, so the page cannot drift (it starts without a warning, and every mail it prints
 * carries the token or code the next step needs);
 * the library README's first example (from the tarball) is compiled as well.
 * Needs `dist/` (`pnpm build`, which `pnpm test` runs first) and the npm registry; skips, saying
 * why, when the registry is unreachable.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import * as OTPAuth from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const PKG_DIR = fileURLToPath(new URL('..', import.meta.url))
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const GETTING_STARTED = fileURLToPath(new URL('../../../docs/getting-started.md', import.meta.url))
const SETUP_TIMEOUT = 240_000

/** npm must not inherit pnpm's `npm_config_*` settings or vitest's NODE_ENV. */
const npmEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_ENV'))

const registryUnreachable = async (): Promise<string | null> => {
  try {
    await run('npm', ['ping'], { env: npmEnv(), timeout: 20_000 })
    return null
  } catch (error) {
    return `npm registry unreachable (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`
  }
}

/** The section of the getting-started page under `## Use it in your own Hono app`, up to the next `## `. */
const readmeSection = (): string => {
  const text = readFileSync(GETTING_STARTED, 'utf8')
  const start = text.indexOf('\n## Use it in your own Hono app')
  if (start < 0) throw new Error('docs/getting-started.md has no "Use it in your own Hono app" section')
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

const codeBlocks = (section: string, lang: string): string[] =>
  [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '')

/** Package names from every `pnpm add` line of the section's `sh` blocks, flags and comments dropped. */
const readmeInstallNames = (section: string): string[] =>
  codeBlocks(section, 'sh')
    .join('\n')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line.startsWith('pnpm add '))
    .flatMap((line) => line.slice('pnpm add '.length).split(/\s+/))
    .filter((word) => word !== '' && !word.startsWith('-'))

/** The `npm pkg set …` commands of the section's `sh` blocks, as npm argument lists. */
const readmeNpmPkgSets = (section: string): string[][] =>
  [
    ...codeBlocks(section, 'sh')
      .join('\n')
      .matchAll(/npm (pkg set [^&#\n]+)/g),
  ].map((m) => (m[1] ?? '').trim().split(/\s+/))

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(dir, f)).isFile())

const waitForListening = (child: ChildProcess, output: string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output.join('')}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString())
      if (output.join('').includes('listening on')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${output.join('')}`))
    })
  })

/** What the example printed for the latest `kind` mail to `to` (its one line, `<kind> mail to <to> {json}`), waiting for it. */
const printedMail = async (output: string[], kind: string, to: string): Promise<Record<string, string>> => {
  const prefix = `${kind} mail to ${to} `
  for (let waited = 0; waited < 5_000; waited += 50) {
    const line = output
      .join('')
      .split('\n')
      .findLast((l) => l.startsWith(prefix))
    if (line !== undefined) return JSON.parse(line.slice(prefix.length)) as Record<string, string>
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no ${kind} mail to ${to} printed:\n${output.join('')}`)
}

const skipReason = await registryUnreachable()
if (skipReason) console.warn(`consumer test skipped: ${skipReason}`)

describe.skipIf(skipReason !== null)('the packed library in a fresh npm project', () => {
  const work = mkdtempSync(join(tmpdir(), 'latchkey-consumer-'))
  const packDir = join(work, 'pack')
  const app = join(work, 'app')
  const output: string[] = []
  let server: ChildProcess | undefined
  let base = ''
  /** Everything the app printed until it listened. */
  let atStart = ''
  let tarballFiles: string[] = []

  beforeAll(async () => {
    const started = Date.now()
    const lap = (step: string) => console.log(`consumer: ${step} after ${((Date.now() - started) / 1000).toFixed(1)} s`)
    if (!existsSync(join(PKG_DIR, 'dist/index.js'))) throw new Error('packages/auth/dist is missing: run `pnpm build` first')

    // The page's pack command, as written, from the repository root: the three packages into packs/.
    const section = readmeSection()
    const packLine = codeBlocks(section, 'sh')[0]?.replace(/#.*/, '').trim() ?? ''
    expect(packLine).toBe('pnpm install && pnpm packs')
    await run('pnpm', ['packs'], { cwd: ROOT, env: npmEnv(), timeout: SETUP_TIMEOUT })
    mkdirSync(packDir)
    const packed = Object.fromEntries(
      ['auth', 'client', 'verify'].map((name) => {
        const { version } = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as { version: string }
        const file = `latchkey-${name}-${version}.tgz`
        copyFileSync(join(ROOT, 'packs', file), join(packDir, file))
        return [name, join(packDir, file)]
      }),
    )
    const tarball = packed.auth as string
    const { stdout: listing } = await run('tar', ['-tzf', tarball])
    tarballFiles = listing
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''))
    console.log(`consumer: ${relative(packDir, tarball)} is ${statSync(tarball).size} bytes, ${tarballFiles.length} files`)

    mkdirSync(app)
    // A project as `npm init -y` makes it (CommonJS), then the README's own `npm pkg set` lines.
    await run('npm', ['init', '-y'], { cwd: app, env: npmEnv() })
    const pkgSets = readmeNpmPkgSets(section)
    expect(pkgSets.length).toBeGreaterThan(0)
    for (const args of pkgSets) await run('npm', args, { cwd: app, env: npmEnv() })
    // The page installs the tarball by its path in the clone's packs/ (named with the version packed).
    const pinned: Record<string, string> = {
      [`../latchkey/packs/${basename(tarball)}`]: tarball,
      '@types/node': '@types/node@20',
    }
    const specs = readmeInstallNames(section).map((name) => pinned[name] ?? name)
    expect(specs).toContain(tarball)
    // The client and the verifier, packed by the same command, install beside it.
    specs.push(packed.client as string, packed.verify as string)
    // --ignore-scripts: better-sqlite3 has no prebuilt binary reachable here and would compile from
    // source (1-2 minutes). Its binary is copied below from the workspace's copy instead, which is an
    // honest shortcut only when the versions match; otherwise it is compiled with `npm rebuild`.
    await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', ...specs], {
      cwd: app,
      env: npmEnv(),
      timeout: SETUP_TIMEOUT,
    })
    lap('npm install')
    const ours = dirname(createRequire(join(PKG_DIR, 'package.json')).resolve('better-sqlite3/package.json'))
    const theirs = join(app, 'node_modules/better-sqlite3')
    const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version
    const binary = 'build/Release/better_sqlite3.node'
    if (version(ours) === version(theirs) && existsSync(join(ours, binary))) {
      mkdirSync(join(theirs, 'build/Release'), { recursive: true })
      copyFileSync(join(ours, binary), join(theirs, binary))
    } else {
      await run('npm', ['rebuild', 'better-sqlite3'], { cwd: app, env: npmEnv(), timeout: SETUP_TIMEOUT })
    }

    const example = codeBlocks(section, 'ts')[0]
    if (!example?.includes('createAuth')) throw new Error('docs/getting-started.md example not found')
    writeFileSync(join(app, 'app.ts'), example)
    // The library README's first example, as it ships in the tarball: it must compile too.
    const libReadme = readFileSync(join(app, 'node_modules/@latchkey/auth/README.md'), 'utf8')
    const libExample = codeBlocks(libReadme, 'ts')[0]
    if (!libExample?.includes('createAuth')) throw new Error('packages/auth/README.md example not found')
    writeFileSync(join(app, 'library-readme.ts'), libExample)
    writeFileSync(
      join(app, 'types.ts'),
      [
        "import { createAuth } from '@latchkey/auth'",
        "import { openSqlite, sqliteStore } from '@latchkey/auth/sqlite'",
        '',
        "const db = openSqlite(':memory:')",
        "// @ts-expect-error better-sqlite3's types reach the consumer; an `any` would accept this",
        'db.noSuchMethod()',
        "const auth = createAuth({ secret: 'consumer-types-secret-0123456789abcdef', store: sqliteStore(db), sendMail: () => {}, policies: { admin: () => true } })",
        '// @ts-expect-error policy names come from the policies map',
        "auth.guard('admn')",
        '',
      ].join('\n'),
    )
    // skipLibCheck: drizzle-orm's own declarations name drivers this app does not install (mysql2,
    // gel). types.ts above proves our declarations still resolve to real types.
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        outDir: 'dist',
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['app.ts', 'types.ts', 'library-readme.ts'],
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig))
    await run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: app }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`)
    })
    lap('tsc')

    // The page's start block, as written: its first line makes the `.env`, its second starts the app.
    const [makeEnv = '', start = ''] = (codeBlocks(section, 'sh').find((b) => b.includes('tsx --env-file')) ?? '')
      .trim()
      .split('\n')
    expect(start).toMatch(/^pnpm exec tsx /)
    await run('sh', ['-c', makeEnv], { cwd: app })
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    server = spawn(join(app, 'node_modules/.bin/tsx'), start.split(/\s+/).slice(3), {
      cwd: app,
      env: { ...npmEnv(), PORT: String(port), NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: tsx runs the app in a child process, and the stop below ends both.
      detached: true,
    })
    await waitForListening(server, output)
    atStart = output.join('')
    lap('server listening')
    // Packing, installing and compiling: each step has SETUP_TIMEOUT, and on a busy machine all of them may need much of it.
  }, 2 * SETUP_TIMEOUT)

  afterAll(async () => {
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve))
      process.kill(-server.pid, 'SIGTERM')
      await exited
    }
    rmSync(work, { recursive: true, force: true })
  }, SETUP_TIMEOUT)

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })

  it('ships dist, the SQLite migrations and the docs, and nothing from the workspace', () => {
    expect(tarballFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/sqlite/index.js',
        'dist/testing/index.js',
        'drizzle/sqlite/meta/_journal.json',
      ]),
    )
    expect(tarballFiles.filter((f) => /\.test\.|\.test-d\.|\.map$|^src\/|^test\//.test(f))).toEqual([])
    const manifest = readFileSync(join(app, 'node_modules/@latchkey/auth/package.json'), 'utf8')
    expect(manifest).not.toContain('workspace:')
    // The workspace-only source condition stays home: the published exports name dist/ only.
    expect(manifest).not.toContain('@latchkey/source')
  })

  it('installs only the driver the app uses, and shares the app’s hono', () => {
    const modules = join(app, 'node_modules')
    expect(existsSync(join(modules, 'better-sqlite3'))).toBe(true)
    expect(existsSync(join(modules, 'pg'))).toBe(false)
    expect(existsSync(join(modules, 'vitest'))).toBe(false)
    // A nested copy of hono or zod would give the app two incompatible Hono types.
    const nested = join(modules, '@latchkey/auth/node_modules')
    expect(existsSync(nested) ? filesUnder(nested).filter((f) => /^(hono|zod|@hono)\//.test(f)) : []).toEqual([])
  })

  it('signs up, logs in and reaches the guarded route over real HTTP', async () => {
    const account = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery staple' }
    const signup = await post('/auth/signup', account)
    expect(signup.status).toBe(201)
    expect(((await signup.json()) as { accessToken: unknown }).accessToken).toEqual(expect.any(String))

    const login = await post('/auth/login', { email: account.email, password: account.password })
    expect(login.status).toBe(200)
    expect(login.headers.getSetCookie().some((c) => /^refresh_token=.+HttpOnly/i.test(c))).toBe(true)
    const { accessToken } = (await login.json()) as { accessToken: string }

    const hello = await fetch(`${base}/hello`, { headers: { Authorization: `Bearer ${accessToken}` } })
    expect(hello.status).toBe(200)
    expect(await hello.json()).toEqual({ hello: 'Ada' })

    const admin = await fetch(`${base}/admin/ping`, { headers: { Authorization: `Bearer ${accessToken}` } })
    expect(admin.status).toBe(403)

    // A browser on the example's own origin (any PORT) may refresh with the cookie.
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? ''
    const refreshed = await post('/auth/refresh', undefined, { Cookie: cookie, Origin: `http://localhost:${new URL(base).port}` })
    expect(refreshed.status).toBe(200)
  })

  it('starts from the page’s .env with nothing to warn about', () => {
    expect(atStart.trim().split('\n')).toEqual([expect.stringMatching(/^listening on http:\/\/localhost:\d+$/)])
  })

  it('prints each mail with the token or the code a developer needs to go on', async () => {
    const account = { name: 'Grace', email: 'grace@example.com', password: 'correct horse battery staple' }
    const signup = await post('/auth/signup', account)
    expect(signup.status).toBe(201)
    const bearer = { Authorization: `Bearer ${((await signup.json()) as { accessToken: string }).accessToken}` }
    const { token } = await printedMail(output, 'verify-email', account.email)
    // From the account's own session the password set at signup is kept (204).
    expect((await post('/auth/verify-email', { token }, bearer)).status).toBe(204)

    // Sign-in by email: the mail carries the link's token and the code for the browser that asked.
    const started = await post('/auth/email-sign-in', { email: account.email })
    const { flow } = (await started.json()) as { flow: string }
    const signIn = await printedMail(output, 'sign-in', account.email)
    expect(signIn.token).toEqual(expect.any(String))
    expect((await post('/auth/email-sign-in/verify', { flow, code: signIn.code })).status).toBe(200)

    // Two-factor: setup mails the add-credential code that enabling asks for beside the app's code.
    const setup = await post('/auth/two-factor/setup', { currentPassword: account.password }, bearer)
    expect(setup.status).toBe(200)
    const { uri } = (await setup.json()) as { uri: string }
    const { code: emailCode, credential } = await printedMail(output, 'add-credential', account.email)
    expect(credential).toBe('two-factor')
    const enable = await post('/auth/two-factor/enable', { code: OTPAuth.URI.parse(uri).generate(), emailCode }, bearer)
    expect(enable.status).toBe(200)
    await printedMail(output, 'two-factor-enabled', account.email)
  })

  it('installs @latchkey/client and @latchkey/verify from the same packs, and both load', async () => {
    const program =
      "const c = await import('@latchkey/client'); const v = await import('@latchkey/verify'); console.log(typeof c.createAuthClient, typeof v.createVerifier)"
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program], { cwd: app })
    expect(stdout.trim()).toBe('function function')
  })

  it('answers an anonymous caller with 401 and a problem document', async () => {
    const res = await fetch(`${base}/hello`)
    expect(res.status).toBe(401)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
  })
})
