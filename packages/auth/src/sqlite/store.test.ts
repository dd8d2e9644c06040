import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { storeConformance } from '../testing/store-conformance.js'
import { migrateSqlite, openSqlite, sqliteStore } from './index.js'

storeConformance('sqlite (file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-store-'))
  const db = openSqlite(join(dir, 'auth.db'))
  migrateSqlite(db)
  return {
    store: sqliteStore(db),
    close: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})
