import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // @latchkey/auth from its sources (generated-types.test.ts reads its routes' document), not a
  // build that may be older.
  ssr: { resolve: { conditions: ['@latchkey/source', ...defaultServerConditions] } },
  test: { name: 'client', include: ['test/**/*.test.ts'], testTimeout: 30_000 },
})
