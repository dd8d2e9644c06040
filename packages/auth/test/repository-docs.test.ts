/**
 * The repository explains itself: no file outside docs/ cites a document that lives outside the
 * repository, and every relative link of its Markdown reaches a file that exists and, for a
 * Markdown file, a heading it has.
 *
 * The link check is written here rather than taken from `markdown-link-check`, which checks
 * every link over the network (slow, and flaky offline); only relative links matter here, and a
 * heading's anchor is the one rule GitHub documents for it (lower case, punctuation dropped,
 * spaces to hyphens, `-1`, `-2`… for repeats), in a few dozen lines.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { harness } from './harness.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

/** Files git tracks, and new ones it does not ignore, that still exist: never node_modules, dist or history. */
const repositoryFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && !/(^|\/)(node_modules|dist)\//.test(file))
    .filter((file) => existsSync(join(ROOT, file)) && statSync(join(ROOT, file)).isFile())

/** Text files only: a NUL byte marks a binary one (images, fonts). */
const textOf = (file: string): string | null => {
  const bytes = readFileSync(join(ROOT, file))
  return bytes.includes(0) ? null : bytes.toString('utf8')
}

// Spelled in pieces, so this file does not cite what it forbids.
const OUTSIDE_CITATIONS = [`CONTRACT ${'\u00a7'}`, `../${'shared'}`]

describe('citations', () => {
  it('no file outside docs/ cites a document outside the repository', () => {
    const offending: string[] = []
    for (const file of repositoryFiles()) {
      if (file.startsWith('docs/')) continue
      const text = textOf(file)
      if (text === null) continue
      text.split('\n').forEach((line, i) => {
        if (OUTSIDE_CITATIONS.some((citation) => line.includes(citation))) offending.push(`${file}:${i + 1}: ${line.trim()}`)
      })
    }
    expect(offending, 'cite docs/reference/<page>.md#<section> instead').toEqual([])
  })
})

/** GitHub's anchor of a heading's text. */
const slugOf = (heading: string): string =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link keeps its text
    .replace(/<[^>]+>/g, '') // inline HTML goes
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')

/** Markdown without its fenced code blocks (a `#` there is a comment, not a heading). */
const withoutFences = (markdown: string): string => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')

/** Markdown without any code (links in code are examples, not links). */
const withoutCode = (markdown: string): string => withoutFences(markdown).replace(/`[^`\n]*`/g, '')

/** Every anchor a Markdown file offers: its headings' slugs (repeats numbered) and explicit ids. */
const anchorsOf = (markdown: string): Set<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, text] of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    // Inline code in a heading keeps its text in the anchor.
    const slug = slugOf((text ?? '').replace(/`/g, ''))
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id as string)
  return anchors
}

/** The relative link targets of a Markdown file: inline `[text](target)` and `[ref]: target` definitions. */
const linksOf = (markdown: string): string[] => {
  const text = withoutCode(markdown)
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string)
  const defined = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string)
  return [...inline, ...defined].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

/** What is wrong with one link of `file`, or `null`. */
const brokenLink = (file: string, target: string, anchors: (markdownFile: string) => Set<string>): string | null => {
  const hash = target.indexOf('#')
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1))
  const resolved = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), path)
  const inRepository = relative(ROOT, resolved)
  if (inRepository.startsWith('..')) return `${target}: outside the repository`
  if (!existsSync(resolved)) return `${target}: no such file`
  if (anchor === null || anchor === '' || !resolved.endsWith('.md')) return null
  return anchors(inRepository).has(anchor) ? null : `${target}: no heading #${anchor} in ${inRepository}`
}

describe('links', () => {
  const markdown = repositoryFiles().filter((file) => file.endsWith('.md'))
  const cache = new Map<string, Set<string>>()
  const anchors = (file: string) => {
    let found = cache.get(file)
    if (!found) {
      found = anchorsOf(readFileSync(join(ROOT, file), 'utf8'))
      cache.set(file, found)
    }
    return found
  }

  it('finds the Markdown of docs/ and the READMEs', () => {
    expect(markdown).toEqual(expect.arrayContaining(['README.md', 'SECURITY.md', 'docs/README.md', 'packages/auth/README.md']))
    expect(markdown.filter((file) => file.startsWith('docs/reference/')).length).toBeGreaterThan(0)
  })

  it('every relative link reaches an existing file, and a Markdown file a heading it has', () => {
    const broken: string[] = []
    for (const file of markdown)
      for (const target of linksOf(readFileSync(join(ROOT, file), 'utf8'))) {
        const problem = brokenLink(file, target, anchors)
        if (problem) broken.push(`${file}: ${problem}`)
      }
    expect(broken).toEqual([])
  })

  it('computes anchors as GitHub does, so a broken one is caught', () => {
    const doc =
      '# Title\n\n## Refresh races\n\n### SQLite (`@latchkey/auth/sqlite`)\n\n## Refresh races\n\n```md\n# not a heading\n```\n'
    expect([...anchorsOf(doc)]).toEqual(['title', 'refresh-races', 'sqlite-latchkeyauthsqlite', 'refresh-races-1'])
    expect(linksOf('[a](x.md#y) `[b](no.md)` [c](https://example.com) [d]: ../z.md\n')).toEqual(['x.md#y'])
    expect(linksOf('[d]: ../z.md\n')).toEqual(['../z.md'])
    const none = () => new Set<string>()
    expect(brokenLink('docs/README.md', 'reference/credentials.md#no-such-section', none)).toMatch(/no heading/)
    expect(brokenLink('docs/README.md', 'reference/missing.md', none)).toMatch(/no such file/)
    expect(brokenLink('docs/README.md', '../../outside.md', none)).toMatch(/outside the repository/)
  })
})

describe('docs/reference/endpoints.md', () => {
  it('names every operation the /auth routes serve', () => {
    const { paths = {} } = harness().auth.routes.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'auth', version: '0' } })
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} /auth${path}`),
    )
    expect(operations.length).toBeGreaterThan(20)
    const reference = readFileSync(join(ROOT, 'docs/reference/endpoints.md'), 'utf8')
    expect(operations.filter((operation) => !reference.includes(`\`${operation}\``))).toEqual([])
  })
})

describe('files a reader can hold', () => {
  it('no source file of a package, the app or the bench is over 300 lines (tests and generated code aside)', () => {
    const source = repositoryFiles().filter(
      (file) =>
        /^(packages\/[^/]+\/src|apps\/[^/]+\/(src|web\/src)|bench\/src)\//.test(file) &&
        /\.(ts|tsx)$/.test(file) &&
        !/\.test(-d)?\.ts$|\/generated\//.test(file),
    )
    expect(source.length).toBeGreaterThan(100)
    const long = source
      .map((file) => [file, (textOf(file) ?? '').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 300)
    expect(long).toEqual([])
  })
})

describe('features are modules', () => {
  const SRC = 'packages/auth/src/'
  const source = () =>
    repositoryFiles().filter((file) => file.startsWith(SRC) && /\.ts$/.test(file) && !/\.test(-d)?\.ts$/.test(file))
  /** The folders that register a feature: each has a `feature.ts`. */
  const featureFolders = () =>
    source()
      .filter((file) => /^[^/]+\/feature\.ts$/.test(file.slice(SRC.length)))
      .map((file) => file.slice(SRC.length, -'/feature.ts'.length))
  /** The feature folders a file imports (statically, or a type), by the folder's name. */
  const featuresImportedBy = (file: string, folders: string[]) =>
    [...(textOf(file) ?? '').matchAll(/\bfrom\s+'(\.[^']+)'/g)]
      .map((m) => relative(join(ROOT, SRC), resolve(dirname(join(ROOT, file)), m[1] ?? '')).split('/')[0] ?? '')
      .filter((folder, i, all) => folders.includes(folder) && all.indexOf(folder) === i)

  it('finds the feature folders and their imports (the check can fail)', () => {
    const folders = featureFolders()
    expect(folders).toEqual(expect.arrayContaining(['two-factor', 'passkeys', 'email-sign-in', 'api-keys', 'oauth', 'admin']))
    expect(featuresImportedBy(`${SRC}features.ts`, folders)).toEqual(expect.arrayContaining(folders))
  })

  it('the core names a feature only in its two lists (and the public exports, which name each table and type)', () => {
    const folders = featureFolders()
    // The public entries name what they export; the test kit's suite imports vitest, which no record may reach.
    const listing = [
      'features.ts',
      'feature-facets.ts',
      'feature-problems.ts',
      'index.ts',
      'sqlite/schema.ts',
      'postgres/schema.ts',
      'testing/index.ts',
      'testing/store-kit.ts',
      'testing/store-conformance.ts',
    ]
    const naming = source()
      .map((file) => file.slice(SRC.length))
      .filter((file) => !folders.includes(file.split('/')[0] ?? '') && !listing.includes(file))
      .filter((file) => featuresImportedBy(`${SRC}${file}`, folders).length > 0)
    expect(naming).toEqual([])
  })
})
