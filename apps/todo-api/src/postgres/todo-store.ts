/**
 * The {@link TodoStore} on PostgreSQL (Drizzle + node-postgres): the same statements as the
 * SQLite store, so ordering, filters, limits and ownership behave identically. Every query
 * carries the owner; PATCH and DELETE match id AND owner in one statement.
 */
import { and, desc, eq, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import type { Pool } from 'pg'
import type { TodoStore } from '../todo-store.js'
import { todos } from './schema.js'

export const postgresTodoStore = (pool: Pool): TodoStore => {
  const db = drizzle({ client: pool })
  const owned = (userId: string, id: string) => and(eq(todos.id, id), eq(todos.userId, userId))

  // The statements of every GET and POST /todos are built once and run as named prepared
  // statements, as the library's store does with its hot ones: building them with Drizzle on
  // every call cost more CPU than the round trip to the database.
  const p = sql.placeholder
  const insert = db
    .insert(todos)
    .values({ id: p('id'), userId: p('userId'), title: p('title'), done: p('done'), createdAt: p('createdAt') })
    .returning()
    .prepare('todo_insert')
  const list = (byDone: boolean, name: string) =>
    db
      .select()
      .from(todos)
      .where(byDone ? and(eq(todos.userId, p('userId')), eq(todos.done, p('done'))) : eq(todos.userId, p('userId')))
      .orderBy(desc(todos.createdAt), desc(todos.id))
      .limit(p('limit'))
      .prepare(name)
  const listAll = list(false, 'todo_list')
  const listByDone = list(true, 'todo_list_by_done')

  return {
    async create(todo) {
      const [row] = await insert.execute({ ...todo })
      if (!row) throw new Error('todos: the insert returned no row')
      return row
    },

    async list(userId, { done, limit }) {
      return done === undefined ? listAll.execute({ userId, limit }) : listByDone.execute({ userId, done, limit })
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
