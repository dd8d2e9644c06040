/**
 * What each entry point imports, followed through its files (docs/reference/operations.md#runtimes), in the sources and,
 * once built (`pnpm test` builds first), in `dist/` as published: the main entry, the HTTP
 * helpers and the test kit only Web APIs and pure-JavaScript packages, so they load on Node,
 * Bun, Deno and Workers alike; a store subpath adds only its own driver. Type-only imports are
 * erased and not counted; a dynamic import with a computed specifier (the native argon2 addon,
 * tried where it can load) is not followed, on purpose.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = dirname(fileURLToPath(import.meta.url))
const DIST = join(SRC, '..', 'dist')

/** Bare specifiers reachable from `entry` (e.g. `sqlite/index`) under `root` by static imports and literal dynamic imports. */
const reachable = (root: string, entry: string): Set<string> => {
  const ext = root === SRC ? '.ts' : '.js'
  const bare = new Set<string>()
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    const specifiers = [
      // `import … from '…'` and `export … from '…'`, unless the whole statement is a type.
      // The clause between the keyword and `from` holds only names, braces, commas and `*`.
      ...[...source.matchAll(/^(?:import|export)(?!\s+type\b)\s[\w\s{},*$]*?\sfrom\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
      // `import '…'` and `import('…')` with a literal, but not `typeof import('…')`.
      ...[...source.matchAll(/^import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
      ...[...source.matchAll(/(?<!typeof\s)\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
    ].filter((s): s is string => s !== undefined)
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, ext)))
      else bare.add(specifier)
    }
  }
  visit(join(root, `${entry}${ext}`))
  return bare
}

/** The package a specifier names (`@noble/hashes/sha2.js` → `@noble/hashes`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/')
const packages = (root: string, entry: string) => [...new Set([...reachable(root, entry)].map(packageOf))].sort()

/** Pure JavaScript on Web APIs: loads on every runtime. */
const PORTABLE = [
  '@hono/zod-openapi',
  '@noble/hashes',
  '@oslojs/encoding',
  '@oslojs/otp',
  '@simplewebauthn/server',
  '@zxcvbn-ts/language-common',
  'drizzle-orm',
  'hono',
  'jose',
  'oauth4webapi',
  'zod',
]

/** Each entry point and the packages beyond {@link PORTABLE} it may import. */
const ENTRIES: [entry: string, what: string, allowed: string[]][] = [
  ['index', 'main entry: Web APIs and pure-JavaScript packages only (no node:, no native addon)', []],
  ['http/index', 'http helpers: the same', []],
  ['testing/index', 'test kit: the same, plus vitest', ['vitest']],
  ['sqlite/index', 'SQLite store: its driver, and node:url for its migrations folder', ['better-sqlite3', 'node:url']],
  ['sqlite/schema', 'SQLite schema alone: no driver', []],
  [
    'bun-sqlite/index',
    'Bun SQLite store: bun:sqlite and node:url (Bun has it), never better-sqlite3',
    ['bun:sqlite', 'node:url'],
  ],
  [
    'node-sqlite/index',
    'node:sqlite store (Deno, Node ≥ 22.5): node:sqlite and node:url, never a native addon',
    ['node:sqlite', 'node:url'],
  ],
  ['d1/index', 'D1 store (Workers): nothing beyond the portable packages, its migrations bundled as strings', []],
  ['postgres/index', 'PostgreSQL store: node:url for its migrations folder (the app passes its own `pg` Pool)', ['node:url']],
]

const built = existsSync(join(DIST, 'index.js'))
if (!built) console.warn('runtime-imports: dist/ is not built; only the sources are checked (pnpm test builds first)')

describe.each([
  { name: 'sources', root: SRC, skip: false },
  { name: 'built dist/', root: DIST, skip: !built },
])('the imports of each entry point, in the $name', ({ root, skip }) => {
  it.skipIf(skip).each(ENTRIES)('%s: %s', (entry, _what, allowed) => {
    expect(packages(root, entry).filter((p) => !PORTABLE.includes(p))).toEqual(allowed)
  })

  it.skipIf(skip).each(['sqlite/index', 'd1/index', 'postgres/index', 'bun-sqlite/index', 'node-sqlite/index'])(
    '%s loads no route: no HTTP framework, no WebAuthn or OAuth client (the features list their facets apart)',
    (entry) => {
      expect(packages(root, entry)).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/^(hono|@hono\/zod-openapi|@simplewebauthn\/server|oauth4webapi|jose)$/)]),
      )
    },
  )

  it.skipIf(skip)('sees through re-exports and finds a node: import (the check can fail)', () => {
    // This test file imports node:fs, node:path and node:url; the SQLite entry re-exports a
    // module and imports node:url itself.
    if (root === SRC)
      expect(packages(root, 'runtime-imports.test')).toEqual(
        expect.arrayContaining(['node:fs', 'node:path', 'node:url', 'vitest']),
      )
    else expect(packages(root, 'sqlite/index')).toEqual(expect.arrayContaining(['better-sqlite3', 'node:url']))
  })
})
