/**
 * Opens the database named by `DATABASE_URL` and brings its tables up to date: the auth tables
 * from @latchkey/auth's migrations, then the app's own from `drizzle/` (SQLite) or
 * `drizzle/postgres/` (PostgreSQL, in `postgres/database.ts`, loaded only when used). Each
 * dialect returns the same {@link AppDatabase}.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RateLimitStore, Store } from '@latchkey/auth'
import { schema as authSchema, migrateSqlite, openSqlite, sqliteStore } from '@latchkey/auth/sqlite'
import { count } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import type { DatabaseTarget } from './config.js'
import { todos } from './schema.js'
import { sqliteTodoStore, type TodoStore } from './todo-store.js'

/** The app's migrations folder; it sits beside `src/` and `dist/`, so both find it. */
export const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url))

export interface AppDatabase {
  /** The store @latchkey/auth runs on. */
  authStore: Store
  /** Where rate-limit counts live when several instances must share them; unset: in memory. */
  rateLimitStore?: RateLimitStore
  todos: TodoStore
  /** Row counts for the admin route. */
  stats(): Promise<{ users: number; todos: number }>
  /** `true` when the database answers a trivial query. */
  ping(): Promise<boolean>
  close(): Promise<void>
}

const openSqliteDatabase = (path: string): AppDatabase => {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const client = openSqlite(path)
  try {
    migrateSqlite(client)
    // A bookkeeping table of our own, so the library's migrations and ours never collide.
    migrate(drizzle({ client }), { migrationsFolder, migrationsTable: '__todo_migrations' })
  } catch (err) {
    client.close()
    throw err
  }
  return {
    authStore: sqliteStore(client),
    todos: sqliteTodoStore(client),
    async stats() {
      const db = drizzle({ client })
      const users = db.select({ n: count() }).from(authSchema.users).get()?.n ?? 0
      return { users, todos: db.select({ n: count() }).from(todos).get()?.n ?? 0 }
    },
    async ping() {
      try {
        return client.prepare('select 1 as ok').get() !== undefined
      } catch {
        return false
      }
    },
    async close() {
      if (client.open) client.close()
    },
  }
}

/** Opens and migrates the database. Idempotent on an existing database. */
export const openDatabase = async (target: DatabaseTarget): Promise<AppDatabase> => {
  switch (target.kind) {
    case 'sqlite':
      return openSqliteDatabase(target.path)
    case 'postgres': {
      const { openPostgresDatabase } = await import('./postgres/database.js')
      return openPostgresDatabase(target.url)
    }
  }
}
