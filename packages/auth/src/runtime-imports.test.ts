/**
 * What each entry point imports, followed through its files (CONTRACT §15): the main entry, the
 * HTTP helpers and the test kit only Web APIs and pure-JavaScript packages, so they load on Node,
 * Bun, Deno and Workers alike; a store subpath adds only its own driver. Type-only imports are
 * erased and not counted; a dynamic import with a computed specifier (the native argon2 addon,
 * tried where it can load) is not followed, on purpose.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = dirname(fileURLToPath(import.meta.url))

/** Bare specifiers reachable from `entry` by static imports and literal dynamic imports. */
const reachable = (entry: string): Set<string> => {
  const bare = new Set<string>()
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    const specifiers = [
      // `import … from '…'` and `export … from '…'`, unless the whole statement is a type.
      // The clause between the keyword and `from` holds only names, braces, commas and `*`.
      ...[...source.matchAll(/^(?:import|export)(?!\s+type\b)\s[\w\s{},*$]*?\sfrom\s+'([^']+)'/gm)].map((m) => m[1]),
      // `import '…'` and `import('…')` with a literal, but not `typeof import('…')`.
      ...[...source.matchAll(/^import\s+'([^']+)'/gm)].map((m) => m[1]),
      ...[...source.matchAll(/(?<!typeof\s)\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
    ].filter((s): s is string => s !== undefined)
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
      else bare.add(specifier)
    }
  }
  visit(join(SRC, entry))
  return bare
}

/** The package a specifier names (`@noble/hashes/sha2.js` → `@noble/hashes`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/')
const packages = (entry: string) => [...new Set([...reachable(entry)].map(packageOf))].sort()

/** Pure JavaScript on Web APIs: loads on every runtime. */
const PORTABLE = [
  '@hono/zod-openapi',
  '@noble/hashes',
  '@oslojs/encoding',
  '@oslojs/otp',
  '@zxcvbn-ts/language-common',
  'drizzle-orm',
  'hono',
  'jose',
  'zod',
]

describe('the imports of each entry point', () => {
  it('main entry: Web APIs and pure-JavaScript packages only (no node:, no native addon)', () => {
    expect(packages('index.ts').filter((p) => !PORTABLE.includes(p))).toEqual([])
  })

  it('http helpers: the same', () => {
    expect(packages('http/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual([])
  })

  it('test kit: the same, plus vitest', () => {
    expect(packages('testing/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual(['vitest'])
  })

  it('SQLite store: its driver, and node:url for its migrations folder', () => {
    expect(packages('sqlite/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual(['better-sqlite3', 'node:url'])
  })

  it('Bun SQLite store: bun:sqlite and node:url (Bun has it), never better-sqlite3', () => {
    expect(packages('bun-sqlite/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual(['bun:sqlite', 'node:url'])
  })

  it('node:sqlite store (Deno, Node ≥ 22.5): node:sqlite and node:url, never a native addon', () => {
    expect(packages('node-sqlite/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual(['node:sqlite', 'node:url'])
  })

  it('D1 store (Workers): nothing beyond the portable packages, its migrations bundled as strings', () => {
    expect(packages('d1/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual([])
  })

  it('PostgreSQL store: node:url for its migrations folder (the app passes its own `pg` Pool)', () => {
    expect(packages('postgres/index.ts').filter((p) => !PORTABLE.includes(p))).toEqual(['node:url'])
  })

  it('sees through re-exports and finds a node: import (the check can fail)', () => {
    // The test file itself imports node:fs, node:path and node:url.
    expect(packages('runtime-imports.test.ts')).toEqual(expect.arrayContaining(['node:fs', 'node:path', 'node:url', 'vitest']))
  })
})
