/**
 * Runs on Deno (vitest started by `deno`, see test/runtimes.test.ts): the store conformance
 * suite on `node:sqlite`, and on PostgreSQL through `pg` on Deno.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshSchema, pgUnreachable } from '../../test/stores.js'
import { postgresStore } from '../postgres/index.js'
import { storeConformance } from '../testing/store-conformance.js'
import { migrateNodeSqlite, nodeSqliteStore, openNodeSqlite } from './index.js'

// Proof of where this runs: the suite below must not pass on Node by mistake.
if (!('Deno' in globalThis)) throw new Error('this file runs on Deno only')

storeConformance('node:sqlite on Deno (file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-deno-'))
  const db = openNodeSqlite(join(dir, 'auth.db'))
  migrateNodeSqlite(db)
  return {
    store: nodeSqliteStore(db),
    close: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

if (pgUnreachable === null)
  storeConformance('postgres (pg on Deno)', async () => {
    const schema = await freshSchema()
    return { store: postgresStore(schema.pool), close: schema.drop }
  })
else console.warn(`PostgreSQL on Deno skipped: ${pgUnreachable}`)
