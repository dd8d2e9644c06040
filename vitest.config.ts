import { availableParallelism } from 'node:os'
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { TIMING as TODO_API_TIMING, test as todoApi } from './apps/todo-api/vitest.config.js'
import { TIMING as AUTH_TIMING, test as auth } from './packages/auth/vitest.config.js'

/**
 * The files that took 20 s or more on the 2-core CI machine, slowest first. They start first, so
 * that no long file is left to run alone at the end; a clean clone has no timings of its own (a
 * checkout that has run the tests orders by its last run instead). A stale entry costs only time.
 */
const SLOW_FIRST = [
  'apps/todo-api/test/attack/fuzz.postgres.test.ts',
  'apps/todo-api/test/attack/fuzz.test.ts',
  'docs/test/site.test.ts',
  'apps/todo-api/test/web.test.ts',
  'packages/auth/src/d1/store.test.ts',
  'packages/auth/test/runtimes.test.ts',
  'packages/auth/src/prune.test.ts',
  'apps/todo-api/test/attack/limiter-flood.test.ts',
  'apps/todo-api/test/typed-client-recipe.test.ts',
  'packages/auth/src/email-sign-in/email-sign-in.test.ts',
  'apps/todo-api/test/config.test.ts',
  'apps/todo-api/test/signing-keys.test.ts',
  'packages/auth/src/postgres/store.test.ts',
]

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((path) => spec.moduleId.endsWith(`/${path}`))
      return i === -1 ? SLOW_FIRST.length : i
    }
    // Within a group (sequence.groupOrder), the listed files first; the rest as vitest ordered them.
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort(
        (a, b) =>
          a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder ||
          rank(a.spec) - rank(b.spec) ||
          a.i - b.i,
      )
      .map(({ spec }) => spec)
  }
}

/**
 * The files that compare medians of timings, as a project of their own that runs after all others,
 * one file at a time. A comparison that lands outside its band once is measured once more: a shared
 * machine's noise does not repeat on cue, a real difference (the reviews measured 1.27–1.53 where
 * the band is 0.9–1.1) fails both times.
 */
const timing = (
  root: string,
  test: TestProjectInlineConfiguration['test'],
  include: string[],
): TestProjectInlineConfiguration => ({
  root,
  test: { ...test, name: `${test?.name} (timing)`, include, sequence: { groupOrder: 1 }, maxWorkers: 1, retry: 1 },
})

export default defineConfig({
  test: {
    projects: [
      'packages/*',
      '!packages/auth',
      'apps/*',
      '!apps/todo-api',
      'docs',
      { root: 'packages/auth', test: { ...auth, exclude: [...auth.exclude, ...AUTH_TIMING] } },
      { root: 'apps/todo-api', test: { ...todoApi, exclude: [...todoApi.exclude, ...TODO_API_TIMING] } },
      timing('packages/auth', auth, AUTH_TIMING),
      timing('apps/todo-api', todoApi, TODO_API_TIMING),
    ],
    // Most files spend their time waiting on a server, a browser or a database in another process:
    // one file per core (vitest's default leaves a core to itself, which ran this suite one file at
    // a time on 2 cores).
    maxWorkers: availableParallelism(),
    sequence: { sequencer: SlowFirst },
  },
})
