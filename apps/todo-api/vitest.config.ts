import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config'

/**
 * The files that compare medians of timings. The root config (vitest.config.ts) runs them after
 * every other file, one at a time, so that no other test file shares the cores with them.
 */
export const TIMING = [
  'test/attack/forgot-at-the-beat.test.ts',
  'test/attack/forgot-next-request.test.ts',
  'test/attack/email-sign-in.test.ts',
]

export const test = {
  name: 'todo-api',
  include: ['test/**/*.test.ts'],
  exclude: configDefaults.exclude,
  // The tests drive `node dist/main.js`: build it first when the sources are newer.
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 20_000,
  hookTimeout: 30_000,
} satisfies ViteUserConfig['test']

export default defineConfig({ test })
