/** The app's `todos` table on SQLite and on PostgreSQL, column by column: the dialects cannot drift. */
import { tableShape } from '@latchkey/auth/testing'
import { expect, it } from 'vitest'
import { todos as pgTodos } from '../src/db/postgres.js'
import { todos as sqliteTodos } from '../src/db/sqlite.js'

it('defines todos alike in both dialects', () => {
  const shape = tableShape(sqliteTodos)
  expect(shape.columns.map((c) => c.name)).toEqual(['id', 'user_id', 'title', 'done', 'created_at'])
  expect(tableShape(pgTodos)).toEqual(shape)
})
