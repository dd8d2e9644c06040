/** The SQLite and PostgreSQL schemas of the auth tables, column by column: the dialects cannot drift. */
import { is, Table } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { schema as pg } from './postgres/index.js'
import { schema as sqlite } from './sqlite/index.js'
import { tableShape } from './testing/index.js'

it.each(['users', 'sessions', 'resetTokens'] as const)('defines %s alike in both dialects', (table) => {
  const shape = tableShape(sqlite[table])
  expect(shape.columns.length).toBeGreaterThan(3)
  expect(tableShape(pg[table])).toEqual(shape)
})

// `@latchkey/auth/sqlite/schema` and the `schema` namespaces are what an app hands to Drizzle and
// drizzle-kit: tables only. The stores' query conditions stay inside the stores.
it.each([
  ['SQLite', sqlite],
  ['PostgreSQL', pg],
] as const)('the %s schema exports tables only', (_, schema) => {
  const notTables = Object.entries(schema)
    .filter(([, value]) => !is(value, Table))
    .map(([name]) => name)
  expect(notTables).toEqual([])
})
