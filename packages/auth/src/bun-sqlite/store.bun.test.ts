/**
 * Runs on Bun (`bun test`, which answers this file's `vitest` imports with `bun:test`): the
 * store conformance suite on `bun:sqlite`, and on PostgreSQL through `pg` on Bun. Started by
 * runtimes.test.ts under `pnpm test`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshSchema, pgUnreachable } from '../../test/stores.js'
import { postgresStore } from '../postgres/index.js'
import { storeConformance } from '../testing/store-conformance.js'
import { bunSqliteStore, migrateBunSqlite, openBunSqlite } from './index.js'

// Proof of where this runs: the suite below must not pass on Node by mistake.
if (!('Bun' in globalThis)) throw new Error('this file runs on Bun only')

storeConformance('bun:sqlite (file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-bun-'))
  const db = openBunSqlite(join(dir, 'auth.db'))
  migrateBunSqlite(db)
  return {
    store: bunSqliteStore(db),
    close: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

if (pgUnreachable === null)
  storeConformance('postgres (pg on Bun)', async () => {
    const schema = await freshSchema()
    return { store: postgresStore(schema.pool), close: schema.drop }
  })
else console.warn(`PostgreSQL on Bun skipped: ${pgUnreachable}`)
