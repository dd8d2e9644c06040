/**
 * The D1 side of the SQLite facets' executor (`sqlite/db.ts`). D1 has no interactive transaction,
 * but a `batch()` runs as one transaction, and a database runs one at a time: every atomic step is
 * one batch of guarded statements, the statement that ends the guard last.
 */
import type { DrizzleD1Database } from 'drizzle-orm/d1'
import type { SqliteSteps } from '../sqlite/db.js'
import type * as schema from '../sqlite/schema.js'

export type D1Db = DrizzleD1Database<typeof schema>

/** The executor on D1: a step is one batch; statements are built per call; every commit is as durable as D1 makes it. */
export const d1Steps = (db: D1Db): SqliteSteps => ({
  prepared: (prepare) => prepare,
  durable: (write) => write(),
  atomic: (statements) => db.batch(statements as never) as never,
  each: (statements) => db.batch(statements as never) as never,
  preparedAtomic: (build) => (values) => db.batch(build(values as never) as never) as never,
})
