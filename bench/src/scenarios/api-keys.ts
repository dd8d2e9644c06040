/**
 * Scenario 1k, beside scenario 1 (docs/guide/api-keys.md): the reference server's guarded read
 * with API keys (`Authorization: Bearer lk_…`, scope `todos:read`) against the same read with
 * access tokens, on the same server and data. A key costs its checksum, a SHA-256 and one indexed
 * read of its row and user, where a token costs an HMAC and one indexed read of its session.
 */
import { seededApiKey } from '@latchkey/auth/testing'
import Database from 'better-sqlite3'
import { accessTokenFor, type Ctx, startApp } from '../context.js'
import type { SeededUser } from '../seed.js'
import {
  bearer,
  compared,
  interleaved,
  type MainData,
  medianCpu,
  medianRps,
  type Outcome,
  problems,
  readTodos,
  rps,
  strip,
} from './shared.js'

/** One live key with `todos:read` per user, written straight into the server's database. */
const seedKeys = (dbPath: string, users: SeededUser[]): string[] => {
  const db = new Database(dbPath)
  try {
    const insert = db.prepare(
      'insert into auth_api_keys (id, user_id, name, hash, prefix, scopes, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    const now = Date.now()
    return db.transaction(() =>
      users.map((user) => {
        const { key, hash, prefix } = seededApiKey()
        insert.run(crypto.randomUUID(), user.id, 'bench', hash, prefix, '["todos:read"]', now, now + 30 * 86_400_000)
        return key
      }),
    )()
  } finally {
    db.close()
  }
}

export const apiKeys = async (ctx: Ctx, data: MainData): Promise<Outcome> => {
  const app = await startApp(ctx, 'todo-api-keys', data.dbPath)
  try {
    const keys = seedKeys(data.dbPath, data.readers)
    const tokens = await Promise.all(data.readers.map((u) => accessTokenFor(ctx, u)))
    ctx.progress('scenario 1k: GET /todos?limit=20 with API keys beside access tokens, 32 connections')
    const reads = await interleaved(ctx, [
      { key: 'token', server: app, variant: readTodos(bearer(tokens)) },
      { key: 'apiKey', server: app, variant: readTodos(bearer(keys)) },
    ])
    const notes = Object.values(reads)
      .flat()
      .map((x) => problems(x))
      .filter(Boolean)
    const rows = [
      compared(
        '1k',
        'Reference server: guarded GET /todos?limit=20 with an API key vs an access token',
        [medianRps(reads.apiKey), medianRps(reads.token)],
        rps,
        { atLeast: 0.9 },
        [...notes, 'lastUsedAt is written once a minute per key, so a run writes it once per key'].join('; '),
      ),
    ]
    return {
      rows,
      raw: { cpuMsPerRequest: { token: medianCpu(reads.token), apiKey: medianCpu(reads.apiKey) }, reads: strip(reads) },
    }
  } finally {
    await app.stop()
  }
}
