/**
 * The todo store: what the routes need from a database, spoken in the domain. Every query
 * carries the owner: a todo is only ever read, changed or deleted together with its `userId`,
 * in the same statement. SQLite implementation here; a PostgreSQL one implements the same interface.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { and, desc, eq } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { type TodoRow, todos } from './schema.js'

export type Todo = TodoRow

export interface TodoChanges {
  title?: string
  done?: boolean
}

export interface TodoStore {
  create(todo: Todo): Promise<Todo>
  /** The owner's todos, newest `createdAt` first, ties by id (newest first). */
  list(userId: string, filter: { done?: boolean; limit: number }): Promise<Todo[]>
  /** Changes the todo only when it has this id AND this owner; `null` when none matches. */
  update(userId: string, id: string, changes: TodoChanges): Promise<Todo | null>
  /** Deletes the todo only when it has this id AND this owner; `false` when none matches. */
  remove(userId: string, id: string): Promise<boolean>
}

export const sqliteTodoStore = (client: BetterSqlite3.Database): TodoStore => {
  const db = drizzle({ client })
  const owned = (userId: string, id: string) => and(eq(todos.id, id), eq(todos.userId, userId))

  return {
    async create(todo) {
      return db.insert(todos).values(todo).returning().get()
    },

    async list(userId, { done, limit }) {
      return db
        .select()
        .from(todos)
        .where(done === undefined ? eq(todos.userId, userId) : and(eq(todos.userId, userId), eq(todos.done, done)))
        .orderBy(desc(todos.createdAt), desc(todos.id))
        .limit(limit)
        .all()
    },

    async update(userId, id, changes) {
      return db.update(todos).set(changes).where(owned(userId, id)).returning().get() ?? null
    },

    async remove(userId, id) {
      return db.delete(todos).where(owned(userId, id)).run().changes > 0
    },
  }
}
