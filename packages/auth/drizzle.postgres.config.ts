/**
 * drizzle-kit config of the PostgreSQL store: `npx drizzle-kit generate --config drizzle.postgres.config.ts`.
 * drizzle-kit writes foreign keys as `REFERENCES "public"."auth_…"`; after generating, strip the
 * `"public".` so the tables follow the connection's `search_path` like the CREATE TABLEs do.
 */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  // The core tables and every feature's own (`src/<feature>/postgres-tables.ts`).
  schema: ['./src/postgres/tables.ts', './src/*/postgres-tables.ts'],
  out: './drizzle/postgres',
})
