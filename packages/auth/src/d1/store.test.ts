/**
 * The D1 store against workerd's own D1 (Miniflare, from npm; nothing downloaded): the store
 * conformance suite with its 20-way races, and the migrations applied as a Worker applies them.
 * One database, emptied before each test (a new workerd per test would cost a second each).
 */
import { readFileSync } from 'node:fs'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH_TABLES as TABLES } from '../../test/workerd/tables.js'
import { storeConformance } from '../testing/store-conformance.js'
import { d1Store, migrateD1 } from './index.js'
import { SQLITE_MIGRATIONS } from './migrations.js'

let mf: Miniflare
/** The binding as the test reads it (the store sees it as a {@link D1DatabaseLike}). */
interface TestD1 {
  prepare(query: string): { all(): Promise<{ results: Record<string, unknown>[] }> }
  batch(statements: unknown[]): Promise<unknown[]>
  exec(query: string): Promise<unknown>
}
let db: TestD1

beforeAll(async () => {
  mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response() } }',
    d1Databases: ['DB'],
    // A fixed request.cf: Miniflare would otherwise fetch one from workers.cloudflare.com.
    cf: { country: 'NL' },
  })
  db = (await mf.getD1Database('DB')) as unknown as typeof db
  await migrateD1(db)
})

afterAll(async () => {
  await mf?.dispose()
})

describe('migrateD1', () => {
  it('carries exactly the committed SQLite migrations (pnpm d1:migrations after db:generate)', () => {
    const folder = new URL('../../drizzle/sqlite/', import.meta.url)
    const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', folder), 'utf8')) as { entries: { tag: string }[] }
    const committed = journal.entries.map(({ tag }) => ({
      tag,
      statements: readFileSync(new URL(`${tag}.sql`, folder), 'utf8')
        .split('--> statement-breakpoint')
        .map((statement) => statement.trim())
        .filter((statement) => statement !== ''),
    }))
    expect(SQLITE_MIGRATIONS).toEqual(committed)
  })

  it('applies every committed migration once, and again changes nothing', async () => {
    await migrateD1(db)
    const { results } = await db.prepare('SELECT tag FROM __latchkey_migrations ORDER BY tag').all()
    expect(results.map((row) => row.tag)).toEqual(SQLITE_MIGRATIONS.map((m) => m.tag))
    const tables = (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'auth_%'").all()).results
    expect(tables.map((row) => row.name).sort()).toEqual([...TABLES].sort())
  })
})

storeConformance('d1 (workerd)', async () => {
  await db.batch(TABLES.map((table) => db.prepare(`DELETE FROM ${table}`)))
  return { store: d1Store(db) }
})
