/**
 * drizzle-kit config of the app's PostgreSQL table: `pnpm db:generate:postgres`. The auth tables
 * come from @latchkey/auth's migrations. drizzle-kit writes foreign keys as
 * `REFERENCES "public"."auth_…"`; after generating, strip the `"public".` so the tables follow the
 * connection's `search_path` like the CREATE TABLEs do.
 */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/postgres.ts',
  out: './drizzle/postgres',
})
