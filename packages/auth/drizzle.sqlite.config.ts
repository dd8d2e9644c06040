import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'sqlite',
  // The core tables and every feature's own (`src/<feature>/sqlite-tables.ts`).
  schema: ['./src/sqlite/tables.ts', './src/*/sqlite-tables.ts'],
  out: './drizzle/sqlite',
})
