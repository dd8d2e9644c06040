import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config'

/**
 * The files that compare medians of timings. The root config (vitest.config.ts) runs them after
 * every other file, one at a time, so that no other test file shares the cores with them.
 */
export const TIMING = ['src/password.test.ts', 'src/email-sign-in/timing.test.ts', 'src/lifecycle/forgot-timing.test.ts']

export const test = {
  name: 'auth',
  include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  // `*.bun.test.ts` and `*.deno.test.ts` run on Bun and Deno themselves, started by test/runtimes.test.ts.
  exclude: [...configDefaults.exclude, '**/*.bun.test.ts', '**/*.deno.test.ts'],
  testTimeout: 20_000,
} satisfies ViteUserConfig['test']

export default defineConfig({ test })
