import { defineConfig } from 'drizzle-kit'

// The app's own tables only; the auth tables come from @latchkey/auth's migrations.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/sqlite.ts',
  out: './drizzle',
})
