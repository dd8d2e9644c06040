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
