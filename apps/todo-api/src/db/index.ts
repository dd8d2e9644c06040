/**
 * Opens the database named by `DATABASE_URL` and brings its tables up to date. Each dialect
 * (`sqlite.ts`, `postgres.ts`, loaded only when used) returns the same {@link AppDatabase}.
 */
import type { DatabaseTarget } from '../config.js'
import { openSqliteDatabase } from './sqlite.js'
import type { AppDatabase } from './todo-store.js'

export type { AppDatabase, Todo, TodoChanges, TodoStore } from './todo-store.js'

/** Opens and migrates the database. Idempotent on an existing database. */
export const openDatabase = async (target: DatabaseTarget): Promise<AppDatabase> => {
  switch (target.kind) {
    case 'sqlite':
      return openSqliteDatabase(target.path)
    case 'postgres': {
      const { openPostgresDatabase } = await import('./postgres.js')
      return openPostgresDatabase(target.url)
    }
  }
}
