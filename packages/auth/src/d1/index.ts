/**
 * `@latchkey/auth/d1`: the store on Cloudflare D1, the SQLite schema and its migrations as
 * strings (a Worker has no file system).
 *
 * @example
 * import { d1Store, migrateD1 } from '@latchkey/auth/d1'
 * await migrateD1(env.DB) // once, e.g. from a deploy step or the first request
 * const auth = createAuth({ secret: env.AUTH_SECRET, store: d1Store(env.DB), getConnInfo, sendMail })
 */

import { SQLITE_MIGRATIONS } from './migrations.js'
import type { D1DatabaseLike } from './store.js'

export * as schema from '../sqlite/schema.js'
export { type D1DatabaseLike, d1Store } from './store.js'

/**
 * Creates or upgrades the library's tables (`auth_*`): applies each committed SQLite migration
 * not yet recorded in `__latchkey_migrations`, in order, each with its record in one batch.
 */
export const migrateD1 = async (db: D1DatabaseLike): Promise<void> => {
  const d1 = db as unknown as {
    prepare(query: string): { bind(...values: unknown[]): unknown; all(): Promise<{ results: { tag: string }[] }> }
    batch(statements: unknown[]): Promise<unknown[]>
    exec(query: string): Promise<unknown>
  }
  await d1.exec('CREATE TABLE IF NOT EXISTS __latchkey_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const done = new Set((await d1.prepare('SELECT tag FROM __latchkey_migrations').all()).results.map((row) => row.tag))
  for (const migration of SQLITE_MIGRATIONS) {
    if (done.has(migration.tag)) continue
    await d1.batch([
      ...migration.statements.map((statement) => d1.prepare(statement)),
      d1.prepare('INSERT INTO __latchkey_migrations (tag, applied_at) VALUES (?, ?)').bind(migration.tag, Date.now()),
    ])
  }
}
