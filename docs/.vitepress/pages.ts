/** The site's pages: the Markdown under docs/ (not its dependencies or build) and SECURITY.md. */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const DOCS = join(ROOT, 'docs')

export const pageFiles = (): string[] => {
  const under = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      if (name === 'node_modules' || name.startsWith('.')) return []
      if (statSync(path).isDirectory()) return under(path)
      return name.endsWith('.md') ? [path] : []
    })
  return [...under(DOCS), join(ROOT, 'SECURITY.md')]
}
