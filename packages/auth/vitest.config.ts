import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'auth',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // `*.bun.test.ts` and `*.deno.test.ts` run on Bun and Deno themselves, started by test/runtimes.test.ts.
    exclude: [...configDefaults.exclude, '**/*.bun.test.ts', '**/*.deno.test.ts'],
    testTimeout: 20_000,
  },
})
