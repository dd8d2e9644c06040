/** The SQLite and PostgreSQL schemas of the auth tables, column by column: the dialects cannot drift. */
import { expect, it } from 'vitest'
import { schema as pg } from './postgres/index.js'
import { schema as sqlite } from './sqlite/index.js'
import { tableShape } from './testing/index.js'

it.each(['users', 'sessions', 'resetTokens'] as const)('defines %s alike in both dialects', (table) => {
  const shape = tableShape(sqlite[table])
  expect(shape.columns.length).toBeGreaterThan(3)
  expect(tableShape(pg[table])).toEqual(shape)
})
