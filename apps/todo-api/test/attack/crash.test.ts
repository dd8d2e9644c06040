/**
 * Crash durability: writers drive signups, todos and refresh rotations at the real server, the
 * server is killed with SIGKILL in the middle of that load, and a new process starts on the
 * same database, SQLite or PostgreSQL. Three times over one database. After each crash: on
 * SQLite `PRAGMA integrity_check` is `ok` (checked on the file as the crash left it, before
 * anything reopens it for writing); every
 * todo and every account whose 201 reached the client is there; every refresh value whose
 * rotation the client saw is refused; the newest one still works unless its own rotation was
 * in flight when the process died.
 */
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { freshDir, type RunningServer, randomSecret, request, startServer } from '../support.js'
import { ATTACK_STORES } from './db-view.js'
import { freshIp, newMember, refreshValueOf, strongPassword, until } from './helpers.js'

const CYCLES = 3
const WRITERS = 6

interface Load {
  todos: string[]
  users: string[]
  /** Refresh values whose rotation answered 200 before the crash: spent. */
  spent: string[]
  /** The newest refresh value the client holds. */
  latest: string
  /** A rotation of `latest` was sent and had not answered when the process died. */
  inFlight: boolean
  /** Requests sent and not yet answered. */
  pending: number
  stop(): Promise<void>
}

/** Starts the writers; they run until `stop()` or until the server stops answering. */
const drive = (server: RunningServer, token: string, refresh: string): Load => {
  let stopped = false
  const load: Load = { todos: [], users: [], spent: [], latest: refresh, inFlight: false, pending: 0, stop: async () => {} }
  const call = async (method: string, path: string, options: Parameters<typeof request>[3] = {}) => {
    load.pending++
    try {
      return await request(server.base, method, path, {
        ...options,
        headers: { 'x-forwarded-for': freshIp(), ...options.headers },
      })
    } finally {
      load.pending--
    }
  }
  const loop = async (step: () => Promise<void>) => {
    while (!stopped) {
      try {
        await step()
      } catch {
        return // the server is gone
      }
    }
  }
  const loops = [
    ...Array.from({ length: WRITERS }, (_, w) =>
      loop(async () => {
        const reply = await call('POST', '/todos', { token, body: { title: `writer ${w} ${randomUUID()}` } })
        if (reply.status === 201) load.todos.push((reply.body as { id: string }).id)
      }),
    ),
    loop(async () => {
      const reply = await call('POST', '/auth/signup', {
        body: { name: 'Crash', email: `crash-${randomUUID()}@example.com`, password: strongPassword() },
      })
      if (reply.status === 201) load.users.push((reply.body as { user: { id: string } }).user.id)
    }),
    loop(async () => {
      load.inFlight = true
      const reply = await call('POST', '/auth/refresh', { cookie: `refresh_token=${load.latest}` })
      load.inFlight = false
      if (reply.status !== 200) throw new Error(`refresh answered ${reply.status}`)
      load.spent.push(load.latest)
      load.latest = refreshValueOf(reply) ?? ''
    }),
  ]
  load.stop = async () => {
    stopped = true
    await Promise.all(loops)
  }
  return load
}

describe.each(ATTACK_STORES)('crash durability on $name', (store) => {
  it.skipIf(store.skip !== null)(
    `keeps every acknowledged write and refuses every spent refresh value across ${CYCLES} SIGKILLs mid-load`,
    async () => {
      const target = await store.prepare()
      const dbPath = join(freshDir(), 'crash.db')
      const databaseUrl = store.name === 'sqlite' ? `file:${dbPath}` : (target.env?.DATABASE_URL ?? '')
      const env = { DATABASE_URL: databaseUrl, AUTH_SECRET: randomSecret(), TRUST_PROXY: 'true' }
      const acknowledged = { todos: [] as string[], users: [] as string[] }
      let server = await startServer({ env })
      const view = target.view({ dbPath })

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const owner = await newMember(server.base, `Owner ${cycle}`)
        const load = drive(server, owner.token, owner.refresh)
        // Mid-load: the writers have had answers and still have requests on the wire.
        await until(() => load.todos.length >= 60 && load.spent.length >= 3 && load.users.length >= 1, 20_000, 'load under way')
        const pending = load.pending
        server.process.kill('SIGKILL')
        const exit = await server.exited
        expect(pending, 'requests on the wire at the kill').toBeGreaterThan(0)
        await load.stop()
        expect(exit.signal).toBe('SIGKILL')
        acknowledged.todos.push(...load.todos)
        acknowledged.users.push(...load.users)
        console.log(
          `crash ${cycle}: killed with ${pending} requests on the wire after ${load.todos.length} todos, ` +
            `${load.users.length} signups and ${load.spent.length} rotations were acknowledged`,
        )

        // The database as the crash left it (on SQLite its write-ahead log included), read-only.
        if (store.name === 'sqlite') {
          const crashed = new Database(dbPath, { readonly: true, fileMustExist: true })
          try {
            expect(crashed.pragma('integrity_check', { simple: true }), `cycle ${cycle}`).toBe('ok')
          } finally {
            crashed.close()
          }
        }
        const todos = new Set((await view.query<{ id: string }>('select id from todos')).map((r) => r.id))
        expect(
          acknowledged.todos.filter((id) => !todos.has(id)),
          `acknowledged todos lost in cycle ${cycle}`,
        ).toEqual([])
        const users = new Set((await view.query<{ id: string }>('select id from auth_users')).map((r) => r.id))
        expect(
          acknowledged.users.filter((id) => !users.has(id)),
          `acknowledged signups lost in cycle ${cycle}`,
        ).toEqual([])

        server = await startServer({ env })
        const refresh = (value: string) => request(server.base, 'POST', '/auth/refresh', { cookie: `refresh_token=${value}` })
        // The newest value first: presenting a spent one later than 10 s after its rotation ends the session.
        // (Its own rotation may have committed without the answer reaching the client: then it is spent too.)
        const newest = await refresh(load.latest)
        expect(load.inFlight ? [200, 401] : [200], `cycle ${cycle}: the newest refresh value`).toContain(newest.status)
        for (const spent of load.spent) expect((await refresh(spent)).status, `cycle ${cycle}: a spent refresh value`).toBe(401)
      }

      try {
        if (store.name === 'sqlite') {
          const db = new Database(dbPath, { readonly: true })
          expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
          db.close()
        }
        expect((await view.query('select id from todos')).length).toBeGreaterThanOrEqual(acknowledged.todos.length)
      } finally {
        await server.stop()
        await view.close()
        await target.drop()
      }
    },
    120_000,
  )
})
