/**
 * The todo store: what the routes need from a database, spoken in the domain. Every query
 * carries the owner: a todo is only ever read, changed or deleted together with its `userId`,
 * in the same statement. SQLite implementation here; a PostgreSQL one implements the same interface.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { and, desc, eq, sql } from 'drizzle-orm'
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

  // The statements of every request are built and prepared once, not per call: building the
  // SQL cost more than running it (pnpm bench). The app makes this store after its migrations.
  const p = sql.placeholder
  const insert = db
    .insert(todos)
    .values({ id: p('id'), userId: p('userId'), title: p('title'), done: p('done'), createdAt: p('createdAt') })
    .returning()
    .prepare()
  // The list is read as raw rows (`values()`) and turned into todos here: Drizzle's own row
  // mapping checks every column of every row, 12 µs of a 20-todo read (docs/PERFORMANCE.md).
  const columns = { id: todos.id, userId: todos.userId, title: todos.title, done: todos.done, createdAt: todos.createdAt }
  const list = (byDone: boolean) =>
    db
      .select(columns)
      .from(todos)
      // A placeholder in a condition is bound as given, unconverted: `done` goes in as SQLite's 0 or 1.
      .where(byDone ? and(eq(todos.userId, p('userId')), eq(todos.done, p('done'))) : eq(todos.userId, p('userId')))
      .orderBy(desc(todos.createdAt), desc(todos.id))
      .limit(p('limit'))
      .prepare()
  const listAll = list(false)
  const listByDone = list(true)
  /** One raw row in the order of `columns`, as SQLite stores it. */
  const fromRow = (row: unknown[]): Todo => {
    const [id, userId, title, done, createdAt] = row as [string, string, string, number, number]
    return { id, userId, title, done: done === 1, createdAt: new Date(createdAt) }
  }

  return {
    async create(todo) {
      const row = insert.get({ ...todo })
      if (!row) throw new Error('insert into todos returned no row')
      return row
    },

    async list(userId, { done, limit }) {
      const rows =
        done === undefined ? listAll.values({ userId, limit }) : listByDone.values({ userId, done: done ? 1 : 0, limit })
      return rows.map(fromRow)
    },

    async update(userId, id, changes) {
      return db.update(todos).set(changes).where(owned(userId, id)).returning().get() ?? null
    },

    async remove(userId, id) {
      return db.delete(todos).where(owned(userId, id)).run().changes > 0
    },
  }
}
