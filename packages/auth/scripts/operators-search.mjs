/**
 * The operators' search over 100,000 accounts, on SQLite and on PostgreSQL (docs/PERFORMANCE.md#the-operators-search):
 * seeds a temporary database (a SQLite file in a temporary folder; a schema of its own on the
 * PostgreSQL server at PG_TEST_URL, dropped after), then times 50 searches of each kind through
 * the store, as `GET /auth/admin/users` runs them, and prints the median and the plan. Run it
 * after `pnpm build`: `node scripts/operators-search.mjs`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { migratePostgres, postgresStore } from '../dist/postgres/index.js'
import { migrateSqlite, openSqlite, sqliteStore } from '../dist/sqlite/index.js'

const USERS = 100_000
const RUNS = 50
const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Barbara', 'Edsger', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim', 'Margaret']
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Liskov', 'Dijkstra', 'Knuth', 'Allen', 'Thompson', 'Perlman']
const T0 = Date.parse('2026-01-01T00:00:00.000Z')
const LIVE = { deadIfRefreshedBy: new Date(0), deadIfCreatedBy: new Date(0) }

/** The i-th account: a name of 120 kinds, a unique email, one second apart. */
const account = (i) => {
  const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`
  return {
    id: `u-${String(i).padStart(6, '0')}`,
    name,
    email: `${name.split(' ')[0].toLowerCase()}.${i}@example.com`,
    createdAt: T0 + i * 1000,
  }
}

/** Each kind of search, 50 times with a different prefix each run. */
const KINDS = {
  'first page (no query)': () => ({ prefix: null }),
  'a narrow email prefix (one account)': (run) => ({ prefix: `${account(run * 1999).email.slice(0, -12)}` }),
  'a name prefix (1 account in 12)': (run) => ({ prefix: FIRST[run % FIRST.length].toLowerCase() }),
  'a broad prefix (one letter)': (run) => ({ prefix: 'abcdefglmrt'[run % 11] }),
  'no match': (run) => ({ prefix: `zz${run}` }),
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

const measure = async (name, store) => {
  const rows = []
  for (const [kind, make] of Object.entries(KINDS)) {
    const times = []
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now()
      await store.searchUsers({ ...make(run), after: null, limit: 21, live: LIVE })
      times.push(performance.now() - started)
    }
    rows.push(`| ${name} | ${kind} | ${median(times).toFixed(2)} ms |`)
  }
  return rows
}

const onSqlite = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-operators-'))
  const db = openSqlite(join(dir, 'auth.db'))
  try {
    migrateSqlite(db)
    const insert = db.prepare('insert into auth_users (id, name, email, password_hash, created_at) values (?, ?, ?, ?, ?)')
    db.transaction(() => {
      for (let i = 0; i < USERS; i++) {
        const a = account(i)
        insert.run(a.id, a.name, a.email, 'h', a.createdAt)
      }
    })()
    // No ANALYZE: an application's database has no statistics unless it gathers them.
    for (const prefix of ['ada', 'zz']) {
      const plan = db
        .prepare(
          `explain query plan select id from auth_users where (email >= '${prefix}' and email < '${prefix}' || char(1114111)) or (lower(name) >= '${prefix}' and lower(name) < '${prefix}' || char(1114111)) order by created_at desc, id desc limit 21`,
        )
        .all()
        .map((row) => row.detail)
      console.log(`SQLite plan for '${prefix}': ${plan.join('; ')}`)
    }
    return await measure('SQLite', sqliteStore(db))
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const onPostgres = async () => {
  const url = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const schema = `operators_${Date.now()}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 })
  try {
    await migratePostgres(pool, { migrationsSchema: schema })
    const batch = 5000
    for (let start = 0; start < USERS; start += batch) {
      const values = []
      const params = []
      for (let i = start; i < start + batch; i++) {
        const a = account(i)
        const n = params.length
        values.push(`($${n + 1}, $${n + 2}, $${n + 3}, 'h', to_timestamp($${n + 4}::double precision / 1000))`)
        params.push(a.id, a.name, a.email, a.createdAt)
      }
      await pool.query(`insert into auth_users (id, name, email, password_hash, created_at) values ${values.join(', ')}`, params)
    }
    await pool.query('analyze auth_users')
    for (const prefix of ['ada', 'zz']) {
      const { rows } = await pool.query(
        `explain select id from auth_users where ((email collate "C") >= '${prefix}' and (email collate "C") < '${prefix}' || chr(1114111)) or ((lower(name) collate "C") >= '${prefix}' and (lower(name) collate "C") < '${prefix}' || chr(1114111)) order by created_at desc, id desc limit 21`,
      )
      console.log(`PostgreSQL plan for '${prefix}':\n${rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}`)
    }
    return await measure('PostgreSQL', postgresStore(pool))
  } finally {
    await pool.end()
    await admin.query(`drop schema ${schema} cascade`)
    await admin.end()
  }
}

const rows = [...(await onSqlite()), ...(await onPostgres())]
console.log(`\n${USERS.toLocaleString('en')} accounts, median of ${RUNS} searches of 21 rows (a page of 20 and one more):\n`)
console.log('| store | search | p50 |\n|---|---|---|')
for (const row of rows) console.log(row)
