/**
 * Each runtime's example README shows its server file as it is, so the code a reader copies is
 * the code runtimes.test.ts runs on that runtime. (The Workers README shows an excerpt and
 * links to its worker instead: the whole file holds the scheduled handler and the mail relay.)
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url))

describe.each([
  { runtime: 'node', file: 'server.js', lang: 'js' },
  { runtime: 'bun', file: 'server.ts', lang: 'ts' },
  { runtime: 'deno', file: 'server.ts', lang: 'ts' },
  { runtime: 'other-service', file: 'server.js', lang: 'js' },
])('examples/$runtime', ({ runtime, file, lang }) => {
  it(`shows ${file} in its README, as it is`, () => {
    const readme = readFileSync(join(EXAMPLES, runtime, 'README.md'), 'utf8')
    const shown = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(readme)?.[1]
    expect(shown, `no \`\`\`${lang} block in examples/${runtime}/README.md`).toBeDefined()
    expect(shown).toBe(readFileSync(join(EXAMPLES, runtime, file), 'utf8'))
  })
})

describe('the runtimes guide and the root README', () => {
  const readme = readFileSync(join(EXAMPLES, '..', 'README.md'), 'utf8')
  const runtimes = readFileSync(join(EXAMPLES, '..', 'docs', 'guide', 'runtimes.md'), 'utf8')
  const startScript = (runtime: string) =>
    (JSON.parse(readFileSync(join(EXAMPLES, runtime, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start

  it.each([
    { runtime: 'bun', command: /`AUTH_SECRET=… bun ([^`]+)`/ },
    { runtime: 'deno', command: /`AUTH_SECRET=… deno run ([^`]+)`/ },
  ])("runs $runtime's example with the arguments of its start script, on its file", ({ runtime, command }) => {
    const shown = command.exec(runtimes)?.[1]
    expect(shown, `no run command for ${runtime} in docs/guide/runtimes.md`).toBeDefined()
    const [file] = (shown as string).split(' ').slice(-1)
    expect(readFileSync(join(EXAMPLES, runtime, file as string), 'utf8')).toContain('createAuth')
    expect(startScript(runtime).endsWith(` ${shown}`)).toBe(true)
  })

  it('pins the TypeScript the repository builds with (a bare `typescript` is TypeScript 7 now)', () => {
    const ours = (
      JSON.parse(readFileSync(join(EXAMPLES, '..', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
    ).devDependencies.typescript as string
    const [major, minor] = ours.replace(/^[~^]/, '').split('.')
    // Every page a reader installs TypeScript from: the README, getting started, and the typed client.
    const pages = [
      readme,
      ...['getting-started.md', 'guide/front-ends.md', 'guide/client.md'].map((page) =>
        readFileSync(join(EXAMPLES, '..', 'docs', page), 'utf8'),
      ),
    ]
    const installs = pages
      .flatMap((text) => text.split('\n'))
      .filter((line) => /^pnpm add -D (.*\s)?typescript(@|\s|$)/.test(line))
    expect(installs.length).toBeGreaterThanOrEqual(4)
    for (const line of installs) expect(line).toMatch(new RegExp(`\\stypescript@~${major}\\.${minor}(\\s|$)`))
    expect(readme).toContain(`\`typescript@~${major}.${minor}\`: the version the repository builds with`)
  })
})

describe("the reference app's curl walk-through", () => {
  const section = readFileSync(join(EXAMPLES, '..', 'docs', 'guide', 'walk-through.md'), 'utf8')

  it('gets a token in each block before it first uses one', () => {
    const shells = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string)
    const usingToken = shells.filter((block) => block.includes('$TOKEN'))
    expect(usingToken.length).toBeGreaterThanOrEqual(2)
    for (const block of usingToken) {
      const lines = block.split('\n')
      const set = lines.findIndex((line) => line.startsWith('TOKEN=$(curl') && /auth\/(login|signup)/.test(line))
      const used = lines.findIndex((line) => line.includes('$TOKEN'))
      expect(set, block.slice(0, 200)).toBeGreaterThanOrEqual(0)
      expect(set).toBeLessThan(used)
    }
  })
})
