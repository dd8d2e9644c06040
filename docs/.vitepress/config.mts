/**
 * The documentation site (VitePress). Its pages are the repository's own Markdown, read in place:
 * docs/ (the guides, the reference pages code comments cite, the benchmark) and SECURITY.md.
 * Links and anchors are the ones GitHub shows, so a page reads the same in both places.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitepress'
import { pageFiles, ROOT } from './pages.js'
import { repositoryLinks } from './repository-links.js'
import { slugify } from './slug.js'

const pages = new Set(pageFiles())
const component = (file: string) => fileURLToPath(new URL(`./theme/${file}`, import.meta.url))
const isPage = (file: string) => pages.has(file) || (existsSync(`${file}.md`) && pages.has(`${file}.md`))

const reference = [
  ['Options of createAuth', 'options'],
  ['Endpoints', 'endpoints'],
  ['Conventions and errors', 'conventions'],
  ['Credentials', 'credentials'],
  ['Limits', 'limits'],
  ['Mail, events and the account lifecycle', 'lifecycle'],
  ['Sign-in by email', 'email-sign-in'],
  ['Two-factor', 'two-factor'],
  ['Passkeys', 'passkeys'],
  ['Operations', 'operations'],
  ['Operators: the admin API', 'operators'],
] as const

const guides = [
  ['Front ends and CORS', 'front-ends'],
  ['The client', 'client'],
  ['Guards, policies and the user', 'guards-and-policies'],
  ['Two-factor sign-in', 'two-factor'],
  ['Step-up: fresh sessions', 'step-up'],
  ['Passkeys', 'passkeys'],
  ['API keys', 'api-keys'],
  ['Sign-in by email', 'email-sign-in'],
  ['Social sign-in', 'social-sign-in'],
  ['Account protection', 'account-protection'],
  ['Other services', 'other-services'],
  ['Runtimes', 'runtimes'],
  ['Stores', 'stores'],
  ['PostgreSQL and several instances', 'postgres'],
  ['Rotating keys', 'rotating-keys'],
  ['Operations', 'operations'],
  ['Operators: the admin API', 'operators'],
  ['The reference server', 'reference-server'],
  ['A walk through the API with curl', 'walk-through'],
] as const

export default defineConfig({
  title: 'Latchkey',
  description: 'Email/password authentication for Hono, in TypeScript',
  srcDir: '..',
  srcExclude: ['**/node_modules/**', '**/dist/**', '!(SECURITY).md', 'packages/**', 'apps/**', 'examples/**', 'bench/**'],
  // Every page keeps its repository path (docs/guide/x.md at /docs/guide/x.html), so a relative
  // link means the same on GitHub and on the site; only the home page moves to /.
  rewrites: { 'docs/index.md': 'index.md' },
  // `http://localhost:3000` is where the reference server runs on the reader's machine.
  ignoreDeadLinks: 'localhostLinks',
  markdown: {
    // Highlighted code at WCAG AA contrast on the code blocks' background, in both themes (the
    // default github-light/-dark themes are not: comments and strings fall below 4.5:1).
    theme: { light: 'github-light-high-contrast', dark: 'github-dark-high-contrast' },
    anchor: { slugify },
    config: (md) => repositoryLinks(md, ROOT, (file) => isPage(resolve(file))),
  },
  // Two of the default theme's components, each wrapped for accessibility (see the files):
  // VitePress's documented way to override an internal component is an alias of its import.
  vite: {
    resolve: {
      alias: [
        { find: /^\.\/VPNavBarSearchButton\.vue$/, replacement: component('SearchButton.vue') },
        { find: /^\.\/VPHome\.vue$/, replacement: component('HomeMain.vue') },
      ],
    },
  },
  themeConfig: {
    search: { provider: 'local' },
    outline: [2, 3],
    nav: [
      { text: 'Getting started', link: '/docs/getting-started' },
      { text: 'Guides', link: '/docs/guide/front-ends' },
      { text: 'Security', link: '/docs/security-model' },
      { text: 'Reference', link: '/docs/reference/options' },
      { text: 'Benchmark', link: '/docs/PERFORMANCE' },
    ],
    sidebar: [
      {
        text: 'Introduction',
        items: [
          { text: 'What Latchkey is', link: '/' },
          { text: 'Getting started', link: '/docs/getting-started' },
        ],
      },
      { text: 'Guides', items: guides.map(([text, page]) => ({ text, link: `/docs/guide/${page}` })) },
      {
        text: 'Security',
        items: [
          { text: 'The security model', link: '/docs/security-model' },
          { text: 'Threats, defences and their tests', link: '/SECURITY' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'The reference pages', link: '/docs/README' },
          ...reference.map(([text, page]) => ({ text, link: `/docs/reference/${page}` })),
        ],
      },
      { text: 'Benchmark', items: [{ text: 'Performance', link: '/docs/PERFORMANCE' }] },
      { text: 'Contributing', items: [{ text: 'The repository', link: '/docs/repository' }] },
    ],
  },
})
