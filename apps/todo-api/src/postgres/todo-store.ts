/**
 * The {@link TodoStore} on PostgreSQL (Drizzle + node-postgres): the same statements as the
 * SQLite store, so ordering, filters, limits and ownership behave identically. Every query
 * carries the owner; PATCH and DELETE match id AND owner in one statement.
 */
import { and, desc, eq } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import type { Pool } from 'pg'
import type { TodoStore } from '../todo-store.js'
import { todos } from './schema.js'

export const postgresTodoStore = (pool: Pool): TodoStore => {
  const db = drizzle({ client: pool })
  const owned = (userId: string, id: string) => and(eq(todos.id, id), eq(todos.userId, userId))

  return {
    async create(todo) {
      const [row] = await db.insert(todos).values(todo).returning()
      if (!row) throw new Error('todos: the insert returned no row')
      return row
    },

    async list(userId, { done, limit }) {
      return db
        .select()
        .from(todos)
        .where(done === undefined ? eq(todos.userId, userId) : and(eq(todos.userId, userId), eq(todos.done, done)))
        .orderBy(desc(todos.createdAt), desc(todos.id))
        .limit(limit)
    },

    async update(userId, id, changes) {
      const [row] = await db.update(todos).set(changes).where(owned(userId, id)).returning()
      return row ?? null
    },

    async remove(userId, id) {
      const { rowCount } = await db.delete(todos).where(owned(userId, id))
      return (rowCount ?? 0) > 0
    },
  }
}
