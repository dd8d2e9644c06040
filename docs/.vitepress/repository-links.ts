/**
 * Links of the site's pages into the repository. The pages are the repository's own Markdown,
 * read on GitHub as well, so they link to source files and folders (`../../examples/bun`).
 * On the site such a link has no page to reach: it is dropped and its text kept. A link to a
 * file or folder that does not exist stays, so VitePress's dead-link check still fails on it.
 */
import { existsSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import type { MarkdownRenderer } from 'vitepress'

export const repositoryLinks = (md: MarkdownRenderer, root: string, isPage: (file: string) => boolean): void => {
  md.core.ruler.push('latchkey-repository-links', (state) => {
    const source: string | undefined = state.env?.realPath ?? state.env?.path
    if (!source) return
    for (const block of state.tokens) {
      const children = block.children
      if (!children) continue
      const dropped: number[] = []
      const open: number[] = []
      children.forEach((token, i) => {
        if (token.type === 'link_open') {
          const href = token.attrGet('href') ?? ''
          const path = decodeURIComponent(href.replace(/[?#].*$/, ''))
          const keep = path === '' || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')
          const target = keep ? '' : resolve(dirname(source), path)
          const drop = !keep && existsSync(target) && !relative(root, target).startsWith('..') && !isPage(target)
          open.push(drop ? i : -1)
          if (drop) dropped.push(i)
        } else if (token.type === 'link_close') {
          const start = open.pop()
          if (start !== undefined && start >= 0) dropped.push(i)
        }
      })
      block.children = children.filter((_, i) => !dropped.includes(i))
    }
  })
}
