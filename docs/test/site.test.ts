/**
 * The documentation site: every code block of its pages (and of the READMEs that point to it) is
 * compiled or run, its reference pages list every option, mail kind and event the code has, and
 * every link of the built site reaches a page and an anchor that exist.
 *
 * - TypeScript blocks are typechecked by a strict `tsc` under `"module": "NodeNext"` (as the
 *   getting-started page sets a project up) against the built packages, each block its own module.
 *   A fragment names the declarations it assumes: `<!-- ts: prelude server -->` above the block
 *   compiles it with docs/test/preludes/server.d.ts. `<!-- ts: in packages/client -->` compiles
 *   it in that package (the React block: React is the client's optional peer, not the site's).
 * - Shell blocks say which test runs them: `<!-- sh: <test file> -->`, and that file must exist
 *   and use every program and every `curl` path of the block (or read the page itself). The
 *   walk-through's first and last blocks are run here, verbatim, against the reference server.
 * - JSON blocks parse.
 * Needs `pnpm build` (the packages' dist/) and `pnpm docs:build` (the site's dist), as `pnpm test` runs them first.
 */
import { execFile } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { DOCS, pageFiles, ROOT } from '../.vitepress/pages.js'
import { slugify } from '../.vitepress/slug.js'
import { type CodeBlock, codeBlocks, shellCommands } from './code-blocks.js'

const run = promisify(execFile)
const rel = (file: string) => relative(ROOT, file)
const READMES = ['README.md', 'packages/auth/README.md', 'packages/client/README.md', 'apps/todo-api/README.md']
const files = [...pageFiles().map(rel), ...READMES]
const blocks: CodeBlock[] = files.flatMap((file) => codeBlocks(file, readFileSync(join(ROOT, file), 'utf8')))
const where = (block: CodeBlock) => `${block.file}:${block.line}`

const TS = new Set(['ts', 'tsx', 'typescript'])
/** Not code: a folder tree or a program's output, shown as it is. */
const TEXT = 'text'
const SH = new Set(['sh', 'bash', 'shell'])

describe('the code blocks', () => {
  it('are all of a language a test checks', () => {
    expect(blocks.length).toBeGreaterThan(40)
    const unknown = blocks.filter(
      (block) => !TS.has(block.lang) && !SH.has(block.lang) && block.lang !== 'json' && block.lang !== TEXT,
    )
    expect(unknown.map((block) => `${where(block)} (${block.lang || 'no language'})`)).toEqual([])
  })

  it('JSON blocks parse', () => {
    for (const block of blocks.filter((b) => b.lang === 'json')) expect(() => JSON.parse(block.code), where(block)).not.toThrow()
  })

  it('each shell block names the test that runs it, and that test runs what the block shows', () => {
    const problems: string[] = []
    for (const block of blocks.filter((b) => SH.has(b.lang))) {
      const [test, ...more] = /^sh: (.+)$/.exec(block.note ?? '')?.[1]?.split(/\s+/) ?? []
      if (!test) {
        problems.push(`${where(block)}: no <!-- sh: <test file> --> above it`)
        continue
      }
      if (test === 'run') continue // run below
      if (test === 'manual') {
        const manual = /^sh: manual (\S+)$/.exec(block.note ?? '')?.[1] ?? ''
        if (!existsSync(join(ROOT, manual))) {
          problems.push(`${where(block)}: ${manual} does not exist`)
          continue
        }
      }
      // A command too long for a test (the benchmark): the script it names must take every flag it shows.
      const manual = /^sh: manual (\S+)$/.exec(block.note ?? '')?.[1]
      if (manual) {
        const script = readFileSync(join(ROOT, manual), 'utf8')
        const flags = [...block.code.matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1] as string)
        const missing = flags.filter((flag) => !script.includes(flag))
        if (missing.length > 0) problems.push(`${where(block)}: ${manual} takes no ${missing.join(', ')}`)
        continue
      }
      // One test file, or several that together run the block.
      const tests = [test, ...more]
      const absent = tests.filter((file) => !existsSync(join(ROOT, file)))
      if (absent.length > 0) {
        problems.push(`${where(block)}: ${absent.join(', ')} does not exist`)
        continue
      }
      const source = tests.map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n')
      if (source.includes(block.file)) continue // the test reads the block from the page
      const missing = shellCommands(block.code).filter((command) => !source.includes(command))
      if (missing.length > 0) problems.push(`${where(block)}: ${tests.join(' + ')} never use ${missing.join(', ')}`)
    }
    expect(problems).toEqual([])
  })

  describe('TypeScript', () => {
    const work: string[] = []
    afterAll(() => {
      for (const dir of work) rmSync(dir, { recursive: true, force: true })
    })

    /** Compiles `sources` (name → code) in a fresh folder under `base`: '' when they compile, else tsc's output. */
    const compile = async (base: string, sources: Record<string, string>, prelude: string | null): Promise<string> => {
      const dir = mkdtempSync(join(base, '.code-blocks-'))
      work.push(dir)
      // No package.json of its own: the folder is part of its base package (an ES module), so a
      // block there may import that package by its own name.
      const names = Object.keys(sources)
      for (const name of names) writeFileSync(join(dir, name), sources[name] as string)
      if (prelude) writeFileSync(join(dir, 'prelude.d.ts'), readFileSync(join(DOCS, 'test', 'preludes', `${prelude}.d.ts`)))
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            jsx: 'react-jsx',
            skipLibCheck: true,
            noEmit: true,
            types: ['node'],
          },
          files: [...names, ...(prelude ? ['prelude.d.ts'] : [])],
        }),
      )
      return run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir], { cwd: dir }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      )
    }

    /** `<!-- ts: <test file> -->`: another test compiles the block (it needs files that test makes). */
    const elsewhere = (block: CodeBlock) => /^ts: (\S+\.test\.ts)$/.exec(block.note ?? '')?.[1]
    const typescript = blocks.filter((block) => TS.has(block.lang) && !elsewhere(block))

    it('a block compiled by another test is read from its page by that test', () => {
      for (const block of blocks.filter(elsewhere)) {
        const test = join(ROOT, elsewhere(block) as string)
        expect(existsSync(test) && readFileSync(test, 'utf8').includes(block.file), where(block)).toBe(true)
      }
    })
    /** Blocks grouped by what they compile with: `<base dir>|<prelude>`. */
    const groups = new Map<string, CodeBlock[]>()
    for (const block of typescript) {
      const prelude = /(?:^|\s)prelude (\S+)/.exec(block.note ?? '')?.[1] ?? ''
      const base = /(?:^|\s)in (\S+)/.exec(block.note ?? '')?.[1] ?? 'docs'
      const key = `${base}|${prelude}`
      groups.set(key, [...(groups.get(key) ?? []), block])
    }

    it('every block names a prelude that exists', () => {
      expect(typescript.length).toBeGreaterThan(20)
      for (const key of groups.keys()) {
        const [base = '', prelude = ''] = key.split('|')
        expect(existsSync(join(ROOT, base, 'package.json')), key).toBe(true)
        if (prelude) expect(existsSync(join(DOCS, 'test', 'preludes', `${prelude}.d.ts`)), key).toBe(true)
      }
    })

    it.each([...groups.keys()])('compile under a strict NodeNext tsc: %s', { timeout: 240_000 }, async (key) => {
      const [base = 'docs', prelude = ''] = key.split('|')
      const group = groups.get(key) ?? []
      const sources = Object.fromEntries(
        group.map((block, i) => [`block-${i}.${block.lang === 'tsx' ? 'tsx' : 'ts'}`, `${block.code}export {}\n`]),
      )
      const output = await compile(join(ROOT, base), sources, prelude || null)
      // Each error names its block's page and line.
      const located = output.replace(/block-(\d+)\.tsx?\((\d+),(\d+)\)/g, (_, i: string, line: string, column: string) => {
        const block = group[Number(i)] as CodeBlock
        return `${block.file}:${block.line + Number(line)}:${column}`
      })
      expect(located).toBe('')
    })

    /** The first-column names of the table under `heading` in a page: `` `name` `` and `` `a` / `b` ``. */
    const tableNames = (page: string, heading: string): string[] => {
      const text = readFileSync(join(DOCS, page), 'utf8')
      const start = `\n${text}`.indexOf(`\n${heading}\n`)
      expect(start, `${page} has no "${heading}"`).toBeGreaterThanOrEqual(0)
      const level = /^#+/.exec(heading)?.[0] ?? '##'
      const rest = text.slice(start + heading.length + 2)
      const end = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'))
      return (end < 0 ? rest : rest.slice(0, end))
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) =>
          [...(line.split('|')[1] ?? '').matchAll(/`([^`(]+)(?:\([^`]*\))?`/g)].map((m) => (m[1] as string).trim()),
        )
    }

    it('the options page documents every option of createAuth, and no other', { timeout: 240_000 }, async () => {
      const names = tableNames('reference/options.md', '# Options of createAuth')
      const top = [...new Set(names.map((name) => name.split('.')[0] as string))]
      const nested = new Map<string, string[]>()
      for (const name of names.filter((n) => n.includes('.'))) {
        const [parent = '', child = ''] = name.split('.')
        nested.set(parent, [...(nested.get(parent) ?? []), child])
      }
      const record = (keys: string[]) => `{ ${keys.map((key) => `${JSON.stringify(key)}: true`).join(', ')} }`
      const source = [
        "import type { AuthOptions, UserRecord } from '@latchkey/auth'",
        'type O = Required<AuthOptions<UserRecord, string>>',
        'type Fields<T> = keyof Exclude<T, boolean | ((...args: never[]) => unknown) | undefined>',
        `export const options: Record<keyof O, true> = ${record(top)}`,
        ...[...nested].map(
          ([parent, children]) => `export const ${parent}: Record<Fields<O['${parent}']>, true> = ${record(children)}`,
        ),
      ].join('\n')
      expect(await compile(DOCS, { 'options.ts': source }, null)).toBe('')
    })

    it('the lifecycle page lists every mail kind and every event', { timeout: 240_000 }, async () => {
      const mails = tableNames('reference/lifecycle.md', '## Mail')
      const events = tableNames('reference/lifecycle.md', '## Events')
      const source = [
        "import type { AuthEventType, AuthMailKind } from '@latchkey/auth'",
        `export const mails: Record<AuthMailKind, true> = { ${mails.map((k) => `${JSON.stringify(k)}: true`).join(', ')} }`,
        `export const events: Record<AuthEventType, true> = { ${events.map((k) => `${JSON.stringify(k)}: true`).join(', ')} }`,
      ].join('\n')
      expect(await compile(DOCS, { 'lists.ts': source }, null)).toBe('')
    })
  })
})

describe('the built site', () => {
  const DIST = join(DOCS, '.vitepress', 'dist')
  const html = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return entry.name === 'assets' ? [] : html(path)
      return entry.name.endsWith('.html') ? [path] : []
    })

  it('has a page for every page file (run `pnpm docs:build` first)', () => {
    expect(existsSync(DIST), 'docs/.vitepress/dist is missing: run `pnpm docs:build`').toBe(true)
    const built = new Set(html(DIST).map((file) => relative(DIST, file)))
    for (const page of pageFiles()) {
      const path = rel(page) === 'docs/index.md' ? 'index.html' : rel(page).replace(/\.md$/, '.html')
      expect(built.has(path), path).toBe(true)
    }
  })

  it('every link between its pages reaches a page, and every anchor a heading there', () => {
    const ids = new Map<string, Set<string>>()
    const idsOf = (file: string) => {
      let found = ids.get(file)
      if (!found) {
        found = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => m[1] as string))
        ids.set(file, found)
      }
      return found
    }
    const broken: string[] = []
    let checked = 0
    for (const file of html(DIST)) {
      const page = readFileSync(file, 'utf8')
      // The article only: the theme's own navigation is built from the config, checked by VitePress.
      const main = page.slice(page.indexOf('<main'), page.lastIndexOf('</main>'))
      for (const [, href = ''] of main.matchAll(/<a [^>]*href="([^"]*)"/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue
        const [path = '', hash] = href.split('#')
        let target = path === '' ? file : href.startsWith('/') ? join(DIST, path) : resolve(dirname(file), path)
        if (target.endsWith('/')) target = join(target, 'index.html')
        checked++
        if (!existsSync(target)) broken.push(`${relative(DIST, file)}: ${href}: no such page`)
        else if (hash && target.endsWith('.html') && !idsOf(target).has(decodeURIComponent(hash)))
          broken.push(`${relative(DIST, file)}: ${href}: no anchor #${hash}`)
      }
    }
    expect(checked).toBeGreaterThan(100)
    expect(broken).toEqual([])
  })

  it("anchors are GitHub's, so a link means the same on GitHub and on the site", () => {
    const page = readFileSync(join(DIST, 'docs', 'reference', 'credentials.html'), 'utf8')
    const source = readFileSync(join(DOCS, 'reference', 'credentials.md'), 'utf8')
    const headings = [...source.matchAll(/^#{2,6} (.+)$/gm)].map((m) => slugify((m[1] as string).replace(/`/g, '')))
    expect(headings.length).toBeGreaterThan(3)
    for (const id of headings) expect(page).toContain(`id="${id}"`)
    expect(slugify('SQLite (`@latchkey/auth/sqlite`)'.replace(/`/g, ''))).toBe('sqlite-latchkeyauthsqlite')
  })
})

// The walk-through's blocks, run against the reference server as a reader pastes them (the token
// and code a reader copies from the server's terminal are read from its log); and the endpoints reference checked against the OpenAPI document that server serves.
describe('the walk-through with curl', () => {
  const page = 'docs/guide/walk-through.md'
  const runnable = blocks.filter((block) => block.file === page && block.note === 'sh: run')

  it('runs every block marked `sh: run`, as written, and each answers as its comments say', { timeout: 180_000 }, async () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3)
    const { startServer } = await import('../../apps/todo-api/test/support.js')
    const server = await startServer()
    // What a reader copies from the server's terminal, the shell reads from its log instead.
    const log = join(mkdtempSync(join(tmpdir(), 'walk-through-')), 'server.log')
    writeFileSync(log, '')
    server.process.stdout?.on('data', (chunk: string | Buffer) => appendFileSync(log, chunk))
    const fromLog = (pattern: string) => `$(sed -n 's/${pattern}/\\1/p' ${log} | tail -1)`
    try {
      // The blocks run in one shell, in order, as a reader pastes them: the first sets API.
      const script = runnable
        .map((block) =>
          block.code
            .replace('API=http://localhost:3000', `API=${server.base}`)
            .replace(
              `-d '{"token":"…the token from that line…"}'`,
              `-d "{\\"token\\":\\"${fromLog('.*email verification link for ada@example.com: .*token=\\([^ ]*\\).*')}\\"}"`,
            )
            .replace('EMAIL_CODE=123456', `EMAIL_CODE=${fromLog('.*add-credential code for ada@example.com: \\([0-9]*\\).*')}`)
            // The next 30-second step, without waiting a whole 30 seconds.
            .replace(/^sleep 30\b/m, 'sleep $((31 - $(date +%s) % 30))'),
        )
        .join('\n')
      for (const placeholder of ['…the token from that line…', 'EMAIL_CODE=123456', '\nsleep 30'])
        expect(script, `the walk-through no longer has ${placeholder}: update this test`).not.toContain(placeholder)
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 90_000 })
      // Every status a comment of the blocks promises, in order (`# 204`, `# 404: …`, `# 401`).
      const promised = [...script.replace(/\\\n/g, ' ').matchAll(/'%\{http_code\}\\n'.*#\s*(\d{3})/g)].map((m) => m[1])
      const printed = stdout.split('\n').filter((line) => /^\d{3}$/.test(line))
      expect(promised.length).toBeGreaterThanOrEqual(4)
      expect(printed).toEqual(promised)
      expect(stdout).toContain('"title":"Walk the dog"')
      expect(stdout).toContain('"email":"ada@example.com"')
      expect(stdout).toMatch(/"recoveryCodes":\[("[0-9A-Za-z-]+",?){10}\]/)
      expect(stdout).toContain('{"enabled":true,"pending":false,"recoveryCodesLeft":10}')

      // The endpoints reference names every operation of the document this server serves.
      const document = (await (await fetch(`${server.base}/openapi.json`)).json()) as { paths: Record<string, object> }
      const operations = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      expect(operations.length).toBeGreaterThan(25)
      const endpoints = readFileSync(join(DOCS, 'reference', 'endpoints.md'), 'utf8')
      const named = (operation: string) =>
        [operation, operation.replace(/\{(\w+)\}/g, ':$1')].some((form) =>
          new RegExp(`\`${form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\`?]`).test(endpoints),
        )
      expect(operations.filter((operation) => !named(operation))).toEqual([])
    } finally {
      await server.stop()
    }
  })
})
