import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'auth',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // `*.bun.test.ts` run on Bun itself (`bun test`), started by test/runtimes.test.ts.
    exclude: [...configDefaults.exclude, '**/*.bun.test.ts'],
    testTimeout: 20_000,
  },
})
