import { defineConfig } from 'vitest/config'

/** The files that run on Deno: `deno run -A node_modules/vitest/vitest.mjs run --config vitest.deno.config.ts`. */
export default defineConfig({
  test: { name: 'auth-deno', include: ['src/**/*.deno.test.ts'], testTimeout: 20_000, pool: 'forks' },
})
