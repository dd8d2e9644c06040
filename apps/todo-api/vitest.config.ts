import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'todo-api',
    include: ['test/**/*.test.ts'],
    // The tests drive `node dist/main.js`: build it first when the sources are newer.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
