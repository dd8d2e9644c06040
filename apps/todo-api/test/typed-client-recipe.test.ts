/**
 * The typed-client recipe of the documentation site's client guide (docs/guide/client.md, "With
 * openapi-fetch"), as a reader runs it: its `openapi-typescript` command against the reference server's /openapi.json, then its
 * code compiled by a strict `tsc` under `"module": "NodeNext"`, next to the generated file. The
 * front-ends guide (docs/guide/front-ends.md) shows the same command. Two variants prove the recipe's two points: without
 * `--default-non-nullable false` the `POST /todos` call does not compile, and an import of
 * `./openapi` without `.js` fails with TS2835. Needs the client's dist/ (`pnpm build`).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APP_DIR, REPO_ROOT, type RunningServer, startServer } from './support.js'

const run = promisify(execFile)
const CLIENT_GUIDE = readFileSync(join(REPO_ROOT, 'docs', 'guide', 'client.md'), 'utf8')
const FRONT_ENDS_GUIDE = readFileSync(join(REPO_ROOT, 'docs', 'guide', 'front-ends.md'), 'utf8')

/** The fenced blocks of `lang` in the part of `text` under `heading`, up to the next heading of its level. */
const blocks = (text: string, heading: string, lang: string): string[] => {
  const start = text.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`no "${heading}" heading`)
  const level = /^#+/.exec(heading)?.[0] ?? '##'
  const next = text.slice(start + heading.length + 2).search(new RegExp(`^${level} `, 'm'))
  const section = text.slice(start, next < 0 ? undefined : start + heading.length + 2 + next)
  return [...section.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '')
}

const installed = (name: string) =>
  (JSON.parse(readFileSync(join(APP_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version

describe('the typed-client recipe', () => {
  let server: RunningServer
  const work = mkdtempSync(join(APP_DIR, '.typed-client-recipe-'))
  const [commands = ''] = blocks(CLIENT_GUIDE, '## With openapi-fetch', 'sh')
  const [code = ''] = blocks(CLIENT_GUIDE, '## With openapi-fetch', 'ts')
  const generate = commands.split('\n').find((line) => line.startsWith('pnpm exec openapi-typescript ')) ?? ''

  beforeAll(async () => {
    server = await startServer()
    writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }))
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true },
        files: ['recipe.ts'],
      }),
    )
  })

  afterAll(async () => {
    await server?.stop()
    rmSync(work, { recursive: true, force: true })
  })

  /** The guide's command, run with the app's openapi-typescript against the test server. */
  const generateTypes = async (command: string) => {
    const args = command
      .slice('pnpm exec openapi-typescript '.length)
      .split(/\s+/)
      .map((arg) => arg.replace('http://localhost:3000', server.base))
    await run(join(APP_DIR, 'node_modules', '.bin', 'openapi-typescript'), args, { cwd: work })
  }
  /** `tsc -p` on the work folder: '' when it compiles, else what it printed. */
  const compile = (source: string) => {
    writeFileSync(join(work, 'recipe.ts'), source)
    return run(join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', work]).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    )
  }

  it('pins the versions the repository runs, and both guides show the same command', () => {
    expect(generate).toMatch(/--default-non-nullable false/)
    expect(commands).toContain(`openapi-typescript@${installed('openapi-typescript')} `)
    expect(installed('openapi-fetch')).toMatch(/^0\.17\./)
    expect(commands).toContain('openapi-fetch@^0.17')
    expect(blocks(FRONT_ENDS_GUIDE, '## A typed client from the OpenAPI document', 'sh')[0]).toBe(commands)
    expect(code).toContain("from './openapi.js'")
  })

  it('generates the types from the served document, and the code compiles under NodeNext', { timeout: 120_000 }, async () => {
    await generateTypes(generate)
    expect(readFileSync(join(work, 'openapi.ts'), 'utf8')).toContain('"/todos"')
    expect(await compile(code)).toBe('')
  })

  it('fails without .js (TS2835) and, without --default-non-nullable false, on the POST without done', {
    timeout: 120_000,
  }, async () => {
    await generateTypes(generate)
    expect(await compile(code.replace("from './openapi.js'", "from './openapi'"))).toMatch(/TS283[45]/)
    await generateTypes(generate.replace(' --default-non-nullable false', ''))
    expect(await compile(code)).toMatch(/done/)
  })
})
